import FeatureFlags

/// Where an ``OFREPProvider`` finds its flag management system, and how it asks.
///
/// ```swift
/// import RemoteFlags
///
/// let configuration = OFREPConfiguration(endpoint: "https://flags.example.com", pollInterval: .seconds(60))
/// _ = configuration
/// ```
public struct OFREPConfiguration: Sendable {
    /// The base URL, before `/ofrep` (`https://flags.example.com`).
    public var endpoint: String
    /// Headers sent with every request (`Authorization`, `X-API-Key`, ...).
    public var headers: [(name: String, value: String)]
    /// How long one request may take, connecting included.
    public var timeout: Duration
    /// How often the bulk evaluation is asked again (with its ETag); nil: never. A server's
    /// `Retry-After` on 429 pushes the next request back.
    public var pollInterval: Duration?
    /// A PEM file of the certificate authorities to trust instead of the system's.
    public var certificateAuthorityFile: String?

    /// A configuration; the timeout defaults to 10 s, as OFREP's providers do, and the bulk
    /// evaluation is asked again every 30 s.
    public init(
        endpoint: String, headers: [(name: String, value: String)] = [], timeout: Duration = .seconds(10),
        pollInterval: Duration? = .seconds(30), certificateAuthorityFile: String? = nil
    ) {
        self.endpoint = endpoint
        self.headers = headers
        self.timeout = timeout
        self.pollInterval = pollInterval
        self.certificateAuthorityFile = certificateAuthorityFile
    }

    /// The configuration OFREP's environment variables give (the protocol's ADR 0007):
    /// `OFREP_ENDPOINT` (required), `OFREP_HEADERS` (`Name=value,Name2=value2`) and
    /// `OFREP_TIMEOUT_MS` (a positive whole number of milliseconds). Code that sets a field
    /// afterwards overrides the environment.
    /// - Throws: ``OFREPConfigurationError`` naming the variable and what is wrong with it.
    public init(environment: [String: String]) throws(OFREPConfigurationError) {
        guard let endpoint = environment["OFREP_ENDPOINT"], !endpoint.isEmpty else {
            throw OFREPConfigurationError("OFREP_ENDPOINT is not set: the base URL of the flag service is needed")
        }
        self.init(endpoint: endpoint)
        if let problem = Self.endpointProblem(endpoint) { throw OFREPConfigurationError("OFREP_ENDPOINT: \(problem)") }
        if let text = environment["OFREP_HEADERS"], !text.isEmpty {
            headers = try Self.headers(text)
        }
        if let text = environment["OFREP_TIMEOUT_MS"], !text.isEmpty {
            guard let milliseconds = Int64(text), milliseconds > 0, milliseconds <= 3_600_000 else {
                throw OFREPConfigurationError(
                    "OFREP_TIMEOUT_MS must be a whole number of milliseconds from 1 to 3600000, found \"\(text)\"")
            }
            timeout = .milliseconds(milliseconds)
        }
    }

    /// Why `endpoint` cannot be a base URL, or nil.
    static func endpointProblem(_ endpoint: String) -> String? {
        let lowered = endpoint.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
            return "must start with https:// or http://"
        }
        guard endpoint.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return "must be visible ASCII without spaces"
        }
        return nil
    }

    /// `Name=value,Name2=value2`: names are HTTP tokens, values visible ASCII and spaces.
    static func headers(_ text: String) throws(OFREPConfigurationError) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let equals = entry.firstIndex(of: "=") else {
                throw OFREPConfigurationError("OFREP_HEADERS: \"\(entry)\" is not Name=value")
            }
            let name = entry[..<equals].trimmingSpaces
            let value = entry[entry.index(after: equals)...].trimmingSpaces
            let token = "!#$%&'*+-.^_`|~"
            guard !name.isEmpty,
                name.unicodeScalars.allSatisfy({
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || token.unicodeScalars.contains($0))
                })
            else {
                throw OFREPConfigurationError("OFREP_HEADERS: \"\(name)\" is not a header name")
            }
            guard value.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) }) else {
                throw OFREPConfigurationError("OFREP_HEADERS: the value of \(name) must be visible ASCII")
            }
            headers.append((name, value))
        }
        return headers
    }
}

/// An OFREP configuration that cannot be used, and why.
public struct OFREPConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
