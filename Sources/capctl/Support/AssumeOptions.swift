import ArgumentParser
import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags

/// What-if options of `check` and `explain`: capabilities' statuses and flags' values given in
/// place of the real ones (`Assumptions`), so a policy can be tried without logging in, editing
/// a flag file or being another user.
struct AssumeOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Decide as if the capability had this status (authorized, denied, unavailable, notDetermined): its backend is not consulted and nobody is asked (repeatable).",
            valueName: "name=status"))
    var assume: [String] = []

    @Option(
        name: .customLong("assume-flag"),
        help: ArgumentHelp(
            "Decide as if the flag had this value, as JSON (true, 3, \"blue\"; anything else is a string) (repeatable).",
            valueName: "key=value"))
    var assumeFlag: [String] = []

    /// The assumptions of `--assume` and `--assume-flag` pairs, checked against `policy`: a name
    /// it does not define, or a status that is no status word, is a usage error.
    static func assumptions(assume: [String], assumeFlags: [String], policy: Policy) throws -> Assumptions {
        var assumptions = Assumptions()
        for pair in assume {
            let (name, word) = try split(pair, option: "--assume")
            guard policy.capabilities[name] != nil else {
                throw CommandFailure(
                    message: "capctl: --assume: no capability \"\(name)\" in the policy"
                        + NameSuggestion.didYouMean(name, among: policy.capabilities.keys),
                    status: ExitStatus.usage)
            }
            guard let kind = CapabilityStatus.Kind(rawValue: word) else {
                throw CommandFailure(
                    message: "capctl: --assume \(name)=\(word): the status is one of "
                        + CapabilityStatus.Kind.allCases.map(\.rawValue).joined(separator: ", "),
                    status: ExitStatus.usage)
            }
            assumptions.capabilities[name] = kind
        }
        let read = policy.flagKeysRead
        for pair in assumeFlags {
            let (key, text) = try split(pair, option: "--assume-flag")
            guard read.contains(key) else {
                throw CommandFailure(
                    message: "capctl: --assume-flag: no gate or capability of the policy reads flag \"\(key)\""
                        + NameSuggestion.didYouMean(key, among: read),
                    status: ExitStatus.usage)
            }
            assumptions.flags[key] = FlagContextOptions.parse(text)
        }
        return assumptions
    }

    private static func split(_ pair: String, option: String) throws -> (String, String) {
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
            throw CommandFailure(
                message: "capctl: \(option) takes name=value, got \"\(pair)\"", status: ExitStatus.usage)
        }
        return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
    }
}
