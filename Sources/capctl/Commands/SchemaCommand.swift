import ArgumentParser
import CapabilityPolicy

/// `capctl schema`: the JSON Schema of policy files, for editors and CI.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of policy files, generated from the capability kinds capctl knows."
    )

    // Accepted as by every subcommand: the schema is JSON already.
    @Flag(name: .long, help: "Print JSON (the schema is JSON either way).")
    var json = false

    func run() throws {
        print(PolicySchema.json(for: PolicyContext.environment), terminator: "")
    }
}
