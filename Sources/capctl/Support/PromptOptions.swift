import ArgumentParser
import CapabilityPolicy

/// How a command that may ask for a password gets it: `--password-stdin`, shared by
/// `authorize`, `check` and `run`.
struct PasswordOptions: ParsableArguments {
    @Flag(name: .long, help: "Answer a password prompt with one line of standard input instead of the terminal.")
    var passwordStdin = false

    /// Policy options that prompt the way these options say, naming `purpose` (a gate) in the prompt.
    func policyOptions(purpose: String? = nil) -> PolicyOptions {
        .forPrompting(passwordFromStandardInput: passwordStdin, purpose: purpose)
    }
}

/// Whether a gate may ask anyone at all (`--non-interactive`, as sudo's), and how: shared by
/// `check` and `run`.
struct PromptOptions: ParsableArguments {
    @Flag(name: .long, help: "Never ask anyone (no password prompt, no polkit agent); report what would be asked.")
    var nonInteractive = false

    /// `--no-prompt`, the spelling before `--non-interactive`: still accepted, no longer shown.
    @Flag(name: .customLong("no-prompt"), help: .hidden)
    var noPrompt = false

    /// Whether authorization may ask someone.
    var allowsInteraction: Bool { !nonInteractive && !noPrompt }

    @OptionGroup var password: PasswordOptions
}
