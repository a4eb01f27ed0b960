import AsyncHTTPClient
import ConfigurationFiles
import Foundation
import NIOCore
import NIOSSL

/// One HTTP client for one remote source: the system's certificate authorities, or only those of
/// a given PEM file; redirects refused (a redirect could carry the `Authorization` header to
/// another host, or downgrade to plain HTTP); shut down once, when the source stops.
final class HTTPConnection: Sendable {
    let client: HTTPClient

    /// - Throws: `ConfigurationError` when the certificate authority file cannot be trusted or read.
    init(certificateAuthorityFile: String?) throws(ConfigurationError) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = certificateAuthorityFile {
            let text = try ConfigurationFile.text(file)
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(text.utf8)))
            } catch {
                throw ConfigurationError("not a PEM certificate file: \(error)", file: file)
            }
        }
        client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow))
    }

    /// Releases the client's connections; without waiting, so it may be called from anywhere.
    func shutdown() {
        client.shutdown { _ in }
    }

    /// The value of `file` as an `Authorization` header: one line of visible ASCII (a trailing
    /// newline is dropped), read through the trusted reader, so neither a policy's text nor a
    /// file others can write supplies a credential, and no value can add a header of its own.
    static func authorization(from file: String) throws(ConfigurationError) -> String {
        var text = try ConfigurationFile.text(file)
        if text.hasSuffix("\r\n") {
            text.removeLast(2)
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) }) else {
            throw ConfigurationError(
                "an authorization file holds one line of visible ASCII (\"Bearer TOKEN\"), nothing else", file: file)
        }
        return text
    }

    /// A `Duration` as NIO's `TimeAmount`, saturating.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .nanoseconds(Int64.max) }
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// A message for a request that did not get an answer.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "no answer in time"
            case .remoteConnectionClosed: return "the connection was closed"
            default: return String(describing: error)
            }
        }
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        return String(describing: error)
    }
}
