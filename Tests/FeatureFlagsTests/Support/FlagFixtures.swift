import ConfigurationFiles
import FeatureFlags

/// A store serving `json`, evaluated with `context` (empty by default, so tests do not depend
/// on the machine's user or host name).
func store(_ json: String, context: FlagEvaluationContext = FlagEvaluationContext()) throws -> FlagStore {
    FlagStore([try FlagSet.parse(json, file: "flags.json")], context: context)
}

/// The first problem strict validation finds in `text`, parsed as a flag file named `flags.json`
/// (or `.yaml`): the error that stops the whole file, or else the first problem of a flag.
func definitionError(_ text: String, format: FlagFileFormat = .json) -> ConfigurationError? {
    do {
        return try FlagSet.parse(text, file: format == .json ? "flags.json" : "flags.yaml", format: format).problems
            .first
    } catch {
        return error
    }
}

/// A flag file with one flag whose variants are colours and whose targeting is `targeting`.
func colorFlags(key: String = "headerColor", targeting: String) -> String {
    """
    {
      "flags": {
        "\(key)": {
          "state": "ENABLED",
          "variants": { "red": "#FF0000", "blue": "#0000FF", "green": "#00FF00", "yellow": "#FFFF00" },
          "defaultVariant": "red",
          "targeting": \(targeting)
        }
      }
    }
    """
}
