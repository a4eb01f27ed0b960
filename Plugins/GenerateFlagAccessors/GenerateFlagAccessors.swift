import PackagePlugin

/// Generates typed names for a target's flag and policy files: `FlagKeys.newExport` (a
/// `FlagKey<Bool>`), `GateNames.export`, `CapabilityNames.admin`. A misspelt name is then a
/// compile error, and a broken flag or policy file fails the build at its line and column.
///
/// Reads the target's `*.flags.json`, `*.flags.yaml` and `*.capctl.yaml` files (resources or
/// not); add them to the target's directory and the plugin to its `plugins:`.
@main
struct GenerateFlagAccessors: BuildToolPlugin {
    static let suffixes = [".flags.json", ".flags.yaml", ".flags.yml", ".capctl.yaml", ".capctl.yml"]

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let inputs = target.sourceFiles.map(\.url).filter { url in
            Self.suffixes.contains { url.lastPathComponent.hasSuffix($0) }
        }.sorted { $0.path < $1.path }
        guard !inputs.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedFlagAccessors.swift")
        return [
            .buildCommand(
                displayName: "Generating flag and gate names for \(target.name)",
                executable: try context.tool(named: "flag-accessor-generator").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
