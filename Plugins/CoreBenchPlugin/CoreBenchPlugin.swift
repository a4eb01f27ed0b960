import Foundation
import PackagePlugin

/// `swift package core-bench [--quick]`: builds the benchmark in release mode and runs it.
@main
struct CoreBenchPlugin: CommandPlugin {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let result = try packageManager.build(
            .target("core-bench"), parameters: .init(configuration: .release, logging: .concise))
        guard result.succeeded,
            let benchmark = result.builtArtifacts.first(where: { $0.kind == .executable })
        else {
            throw Failure(description: "building core-bench failed:\n\(result.logText)")
        }
        let process = Process()
        process.executableURL = benchmark.url
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "core-bench exited with status \(process.terminationStatus)")
        }
    }
}
