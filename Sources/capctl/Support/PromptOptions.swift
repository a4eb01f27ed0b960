import ArgumentParser
import CapabilityPolicy

/// How a command that may ask for a password gets it: `--password-stdin`, shared by
/// `authorize`, `check` and `run`.
struct PasswordOptions: ParsableArguments {
    @Flag(name: .long, help: "Answer a password prompt with one line of standard input instead of the terminal.")
    var passwordStdin = false

    /// Policy options that prompt the way these options say.
    var policyOptions: PolicyOptions { .forPrompting(passwordFromStandardInput: passwordStdin) }
}

/// Whether a gate may ask at all (`--no-prompt`), and how: shared by `check` and `run`.
struct PromptOptions: ParsableArguments {
    @Flag(name: .long, help: "Never ask for authorization; report what would be asked.")
    var noPrompt = false

    @OptionGroup var password: PasswordOptions
}
