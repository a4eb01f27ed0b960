import ConfigurationFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A provider that serves flags from environment variables, as OpenFeature's environment variable
/// providers for other languages do: the simplest flags a twelve-factor service can have, set by
/// whatever starts it (a unit file's `Environment=`, a container's `env`).
///
/// ```swift
/// // FEATURE_NEW_CHECKOUT=true  FEATURE_PAGE_SIZE=50  FEATURE_BANNER='{"text": "Hello"}'
/// await OpenFeatureAPI.shared.setProvider(EnvironmentFlagProvider(prefix: "FEATURE_"))
/// let client = OpenFeatureAPI.shared.client()
/// client.boolean("new-checkout", default: false)  // true
/// ```
///
/// A flag key names its variable as ``Naming`` says (by default upper-cased, `-` and `.` as `_`,
/// after `prefix`). The value is read as the type asked for: `true` or `false`, an integer, a
/// number, the text itself, or a JSON value for an object; reason `STATIC`. A variable that is not
/// set is `FLAG_NOT_FOUND`; one that does not read as the type asked for is `TYPE_MISMATCH` (for
/// an object, invalid JSON is `PARSE_ERROR`), and the caller's default is returned. Targeting and
/// the evaluation context play no part: every caller gets the same value.
///
/// The environment is read once, when the provider is made: variables set later in the process
/// are not seen (and reading the live environment while another thread sets a variable is not
/// safe in C).
public struct EnvironmentFlagProvider: FeatureProvider {
    /// How a flag key becomes a variable name (after the prefix).
    public enum Naming: Sendable {
        /// The key as written.
        case exact
        /// Upper case, with `-`, `.` and spaces as `_`: `new-checkout` is `NEW_CHECKOUT`.
        case upperSnakeCase
    }

    private let variables: [String: String]
    private let prefix: String
    private let naming: Naming

    /// A provider over `environment` (by default, the process's environment as it is now).
    /// - Parameters:
    ///   - environment: Variables by name.
    ///   - prefix: Put before every variable name, so that only variables meant as flags are read.
    ///   - naming: How a flag key becomes the rest of the name.
    public init(
        environment: [String: String]? = nil, prefix: String = "", naming: Naming = .upperSnakeCase
    ) {
        variables = environment ?? Self.processEnvironment()
        self.prefix = prefix
        self.naming = naming
    }

    public var metadata: ProviderMetadata { ProviderMetadata(name: "Environment Variable Provider") }

    /// The variable that holds `key`.
    public func variableName(for key: String) -> String {
        switch naming {
        case .exact: return prefix + key
        case .upperSnakeCase:
            return prefix
                + String(
                    key.uppercased().map { character -> Character in
                        character == "-" || character == "." || character == " " ? "_" : character
                    })
        }
    }

    private func details<T: FlagValueType>(
        _ key: String, _ defaultValue: T, read: (String) -> FlagValue?
    ) -> FlagEvaluationDetails<T> {
        let name = variableName(for: key)
        guard let text = variables[name] else {
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .flagNotFound,
                errorMessage: "no flag \"\(key)\": the variable \(name) is not set")
        }
        guard let value = read(text), let typed = T(flagValue: value) else {
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .typeMismatch,
                errorMessage: "\(name) is not \(T.requested): \"\(text)\"")
        }
        return FlagEvaluationDetails(flagKey: key, value: typed, reason: .static)
    }

    public func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Bool>
    {
        details(key, value) { text in
            switch text {
            case "true": .bool(true)
            case "false": .bool(false)
            default: nil
            }
        }
    }

    public func resolveStringEvaluation(_ key: String, default value: String, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<String>
    { details(key, value) { .string($0) } }

    public func resolveIntegerEvaluation(_ key: String, default value: Int, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Int>
    { details(key, value) { Int($0).map { .number(Double($0)) } } }

    public func resolveDoubleEvaluation(_ key: String, default value: Double, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Double>
    { details(key, value) { Double($0).flatMap { $0.isFinite ? .number($0) : nil } } }

    public func resolveObjectEvaluation(_ key: String, default value: FlagValue, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<FlagValue>
    {
        let name = variableName(for: key)
        guard let text = variables[name] else { return details(key, value) { _ in nil } }
        do throws(ConfigurationError) {
            let document = try JSONDocumentReader.read(text, file: name)
            return FlagEvaluationDetails(flagKey: key, value: document.value, reason: .static)
        } catch {
            return FlagEvaluationDetails(
                flagKey: key, value: value, reason: .error, errorCode: .parseError,
                errorMessage: "\(name) is not JSON: \(error)")
        }
    }

    /// The process's environment as it is now.
    private static func processEnvironment() -> [String: String] {
        var variables: [String: String] = [:]
        // clearenv() leaves environ null.
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return variables }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }
}
