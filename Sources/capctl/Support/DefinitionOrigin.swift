import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags

/// Where a definition of the merged policy came from, for `status --origin`: the file:line that
/// defined it, the definitions it replaced, and those of the per-user layer a final system policy
/// kept it over. Overrides are never silent.
struct DefinitionOrigin: Sendable, Equatable {
    /// `FILE:LINE:COLUMN` of the definition in force.
    var location: String
    /// Earlier definitions it replaced, earliest first.
    var replaced: [String] = []
    /// Definitions of the per-user layer refused because the system policy is final.
    var keptOver: [String] = []

    /// A definition at `location` that replaced nothing known here.
    init(location: String) {
        self.location = location
    }

    /// The definition of `name` (a `capability`, `gate`, `setting` or `flag-source`) at `location`.
    init(_ policy: Policy, kind: String, name: String, at location: FileLocation) {
        self.location = location.description
        replaced = policy.overrides.filter { $0.kind == kind && $0.name == name }.map(\.replaced.description)
        keptOver = policy.refusedOverrides.filter { $0.kind == kind && $0.name == name }.map(\.replaced.description)
    }

    /// For the table: `FILE:LINE:COLUMN (replaces A; kept over B: the system policy is final)`.
    var text: String {
        var notes: [String] = []
        if !replaced.isEmpty { notes.append("replaces " + replaced.joined(separator: ", ")) }
        if !keptOver.isEmpty {
            notes.append("kept over " + keptOver.joined(separator: ", ") + ": the system policy is final")
        }
        return notes.isEmpty ? location : location + " (" + notes.joined(separator: "; ") + ")"
    }

    var json: FlagValue {
        .structure([
            "location": .string(location), "replaced": .list(replaced.map(FlagValue.string)),
            "keptOver": .list(keptOver.map(FlagValue.string)),
        ])
    }

    /// Each flag source with its name, kind of source and origin, in precedence order.
    static func flagSources(of policy: Policy) -> [(name: String, source: String, origin: DefinitionOrigin)] {
        zip(policy.flagSources, policy.flagSourceLocations).map { source, location in
            let name = Policy.flagSourceName(source)
            let form = source.path != nil ? "file" : source.url != nil ? "service" : "inline"
            return (name, form, DefinitionOrigin(policy, kind: "flag-source", name: name, at: location))
        }
    }
}
