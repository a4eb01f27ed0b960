import ArgumentParser
import LinuxCapabilities

/// `capctl status`: every known capability with its current status and reason. Never prompts.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the current status of the host's capabilities, without prompting."
    )

    @Flag(name: .long, help: "Print one JSON object instead of a table.")
    var json = false

    func run() throws {
        let entries = HostReport.current().entries
        if json {
            print(StatusRenderer.json(capabilities: entries))
        } else {
            print(StatusRenderer.table(entries))
        }
    }
}
