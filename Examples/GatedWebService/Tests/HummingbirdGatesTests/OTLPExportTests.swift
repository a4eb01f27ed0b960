import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The example service as an operator runs it, with a collector: the built `gated-web-service`,
/// told where to export by OpenTelemetry's variables, sends its spans over OTLP/HTTP (JSON) to a
/// receiver on loopback, and the receiver reads the request's span and the gate decision's in them.
@Suite("OTLP export of the example service", .timeLimit(.minutes(2)))
struct OTLPExportTests {
    /// The service built beside this test bundle (Scripts/test-web builds both).
    static var service: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("gated-web-service").path
    }
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every span of an OTLP/HTTP JSON export body: its name and attributes (values as text).
    static func spans(in body: Data) -> [(name: String, attributes: [String: String])] {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        var found: [(String, [String: String])] = []
        for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    var attributes: [String: String] = [:]
                    for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                        guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any]
                        else { continue }
                        attributes[key] = value.values.first.map { "\($0)" }
                    }
                    found.append((span["name"] as? String ?? "", attributes))
                }
            }
        }
        return found
    }

    @Test("a request's span and its gate decision's reach an OTLP/HTTP collector on loopback")
    func export() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.service), "\(Self.service) is not built")
        let (bodies, received) = AsyncStream<Data>.makeStream()
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let router = Router()
        router.post("v1/traces") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 16 << 20)
            received.yield(Data(String(buffer: body).utf8))
            return .ok
        }
        let collector = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { listening.yield(port) }
            })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await collector.runService() }
            var portIterator = ports.makeAsyncIterator()
            let collectorPort = try #require(await portIterator.next())

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            // The example's status gate, without its operators' group (a host need not have one).
            try Data(
                """
                flags:
                  files: [flags.json]
                gates:
                  status:
                    require: { not: { flag: maintenance } }

                """.utf8
            ).write(to: directory.appendingPathComponent("policy.yaml"))
            try Data(contentsOf: Self.example.appendingPathComponent("flags.json"))
                .write(to: directory.appendingPathComponent("flags.json"))
            let errors = Pipe()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.service)
            process.arguments = [
                "--policy", directory.appendingPathComponent("policy.yaml").path, "--port", "0",
                "--proxy-user-header", "X-Remote-User", "--audit-socket", directory.appendingPathComponent("log").path,
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:\(collectorPort)"
            environment["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/json"
            environment["OTEL_BSP_SCHEDULE_DELAY"] = "100"
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            defer {
                process.terminate()
                process.waitUntilExit()
            }
            // The service says where it listens once it does (a read that waits for its line).
            var text = ""
            var servicePort: Int?
            while servicePort == nil {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }  // it exited
                text += String(decoding: chunk, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
                    let colon = line.lastIndex(of: ":")
                {
                    servicePort = Int(line[line.index(after: colon)...])
                }
            }
            guard let port = servicePort else {
                // It exited: what it said on its way out.
                let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                Issue.record("the service did not start: \(text) \(said)")
                group.cancelAll()
                return
            }

            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Remote-User: root",
                "http://127.0.0.1:\(port)/status",
            ]
            let curlOutput = Pipe()
            curl.standardOutput = curlOutput
            try curl.run()
            curl.waitUntilExit()
            let status = String(decoding: curlOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(status == "200")

            // Exports come in batches: read them until both spans have come.
            var seen: [(name: String, attributes: [String: String])] = []
            for await body in bodies {
                seen += Self.spans(in: body)
                if seen.contains(where: { $0.name == "gate status" }),
                    seen.contains(where: { $0.name == "route gate status" })
                {
                    break
                }
            }
            let route = try #require(seen.first { $0.name == "route gate status" })
            #expect(route.attributes["http.request.method"] == "GET")
            #expect(route.attributes["http.response.status_code"] == "200")
            #expect(route.attributes["capctl.outcome"] == "holds")
            #expect(route.attributes["enduser.id"] == "root")
            let gate = try #require(seen.first { $0.name == "gate status" })
            #expect(gate.attributes["capctl.gate"] == "status")
            #expect(gate.attributes["capctl.outcome"] == "holds")
            #expect(gate.attributes["capctl.policy.revision"]?.isEmpty == false)
            group.cancelAll()
        }
    }
}
