public import ArgumentParser
import CapabilityPolicy
import Foundation
import LinuxBackends
import RemoteFlags

/// The `capctl` command: shows, checks, explains and uses capabilities, flags and gates.
public struct Capctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "capctl",
        abstract: "Show, check, explain and use capabilities, feature flags and gates.",
        discussion: """
            Policy files are read from /usr/share/capctl, /etc/capctl and /run/capctl (each with \
            policy.yaml and policy.d/*.yaml, later ones replacing earlier definitions) and \
            $XDG_CONFIG_HOME/capctl; CAPCTL_POLICY_ROOTS replaces the system roots; --policy \
            replaces the search.

            Exit statuses: 0 satisfied or authorized; 1 denied or unavailable; 2 would need \
            authorization (with --no-prompt); 3 the prompt was dismissed; 64 usage error; 77 run \
            refused; 78 policy or flag file error.
            """,
        version: BuildVersion.description,
        subcommands: [
            StatusCommand.self, CheckCommand.self, AuthorizeCommand.self, RunCommand.self, FlagsCommand.self,
            ValidateCommand.self, WatchCommand.self, SchemaCommand.self,
        ]
    )

    public init() {}

    /// Runs the command line, with capctl's exit statuses.
    public static func runMain() async {
        LinuxPolicySupport.install()
        PolicyEnvironment.shared.httpFlagSource = { HTTPFlagSource($0) }
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data((failure.message + "\n").utf8))
            Foundation.exit(failure.status.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}
