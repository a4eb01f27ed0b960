import ArgumentParser
import ConfigurationFiles
import FeatureFlags

/// The context flags are evaluated with, for every command that reads flags: what a service
/// passes as its OpenFeature evaluation context, so capctl sees the same values it does.
struct FlagContextOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A flag evaluation context attribute, laid over the host's (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.",
            valueName: "key=value"))
    var context: [String] = []

    @Option(
        name: .customLong("targeting-key"),
        help: "The targeting key flags are evaluated with (the host name by default).")
    var targetingKey: String?

    /// The context given, or nil when none was.
    func evaluationContext() throws -> FlagEvaluationContext? {
        try Self.evaluationContext(context: context, targetingKey: targetingKey)
    }

    /// The context of `--context key=value` pairs and `--targeting-key`, or nil when neither was given.
    static func evaluationContext(context: [String], targetingKey: String?) throws -> FlagEvaluationContext? {
        guard !context.isEmpty || targetingKey != nil else { return nil }
        var attributes: [String: FlagValue] = [:]
        for pair in context {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CommandFailure(
                    message: "capctl: --context takes key=value, got \"\(pair)\"", status: ExitStatus.usage)
            }
            let key = String(pair[..<equals])
            guard key != "targetingKey" else {
                throw CommandFailure(
                    message: "capctl: give the targeting key with --targeting-key", status: ExitStatus.usage)
            }
            attributes[key] = Self.parse(String(pair[pair.index(after: equals)...]))
        }
        return FlagEvaluationContext(targetingKey: targetingKey, attributes: attributes)
    }

    /// A context or default value: JSON when it parses as JSON, a string otherwise.
    static func parse(_ text: String) -> FlagValue {
        guard let node = try? JSONDocumentReader.read(text, file: "--context") else { return .string(text) }
        return node.value
    }
}
