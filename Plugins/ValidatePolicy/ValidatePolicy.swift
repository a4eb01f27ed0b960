import Foundation
import PackagePlugin

/// `swift package validate-policy [FILE...]`: checks every policy file (`*.capctl.yaml`) and flag
/// file (`*.flags.json`, `*.flags.yaml`) in the package with `capctl validate`'s checks, printing
/// each error with file:line:column, and fails when there is one. For CI.
@main
struct ValidatePolicy: CommandPlugin {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let suffixes = [".flags.json", ".flags.yaml", ".flags.yml", ".capctl.yaml", ".capctl.yml"]

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let files = arguments.isEmpty ? Self.files(under: context.package.directoryURL) : arguments
        guard !files.isEmpty else {
            print("validate-policy: no policy or flag files in the package")
            return
        }
        let capctl = try context.tool(named: "capctl")
        let process = Process()
        process.executableURL = capctl.url
        process.arguments = ["validate"] + files
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "validate-policy: \(files.count) file(s) checked, errors above")
        }
    }

    /// The package's policy and flag files, outside build folders and hidden directories.
    static func files(under root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            if name.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            if suffixes.contains(where: { name.hasSuffix($0) }) { found.append(url.path) }
        }
        return found.sorted()
    }
}
