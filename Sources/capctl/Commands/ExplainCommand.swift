import ArgumentParser

/// `capctl explain GATE`: `capctl check GATE --explain`, under the name people look for.
struct ExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Decide a gate and print every requirement with passed, failed or not checked, and why.",
        discussion: "The same as check GATE --explain, with the same exit statuses.")

    @OptionGroup var options: CommonOptions

    @Argument(help: "The gate's name.")
    var gate: String

    @OptionGroup var prompt: PromptOptions

    @OptionGroup var flagContext: FlagContextOptions

    @OptionGroup var subjectOptions: SubjectOptions

    @OptionGroup var assumeOptions: AssumeOptions

    func run() async throws {
        try await CheckCommand.request(
            gate: gate, options: options, prompt: prompt, explain: true, flagContext: flagContext,
            subjectOptions: subjectOptions, assumeOptions: assumeOptions
        ).run()
    }
}
