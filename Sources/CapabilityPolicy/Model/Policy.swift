public import ConfigurationFiles
public import FeatureFlags
import Plumbing

/// Capabilities, flag sources and gates, merged from every policy file in precedence order:
/// a later definition of a name replaces an earlier one.
///
/// ```swift
/// let parsed = try PolicyLoader.load(files: ["/etc/myservice/policy.yaml"])
/// print(parsed.gates.keys.sorted(), parsed.files)
/// ```
public struct Policy: Sendable {
    /// The environment the policy was read with: its kinds gave the capabilities their meaning,
    /// and a loaded policy builds them and evaluates its flags with it.
    public internal(set) var environment = PolicyEnvironment.portable
    /// Capabilities by name.
    public internal(set) var capabilities: [String: CapabilityDeclaration] = [:]
    /// Gates by name.
    public internal(set) var gates: [String: GateDeclaration] = [:]
    /// Where flags come from, inline sets and files alike, lowest precedence first: the layer
    /// that names a source decides its place, whatever form the flags take.
    public internal(set) var flagSources: [FlagSource] = []
    /// Where each of ``flagSources`` was named, in the same order.
    public internal(set) var flagSourceLocations: [FileLocation] = []
    /// Whether the per-user layer named each of ``flagSources``, in the same order.
    var flagSourcesFromUserLayer: [Bool] = []
    /// Flag definition files (flagd format), in precedence order.
    public var flagFiles: [String] { flagSources.compactMap(\.path) }
    /// Capabilities, gates, settings and flag sources a later file defined again, replacing an earlier definition.
    public internal(set) var overrides: [PolicyOverride] = []
    /// Where a system policy file said `final: true`: from then on the per-user layer may add
    /// definitions but not replace the system's, and its flag sources rank below the system's.
    public internal(set) var finalLocation: FileLocation?
    /// Definitions of the per-user layer that would have replaced the system's while the system
    /// policy is final: the system's stay in force (`replaced` is the user's, `by` the system's).
    public internal(set) var refusedOverrides: [PolicyOverride] = []
    /// Which decisions the audit trail records (`audit:`), when a policy file says; a later
    /// file's setting replaces an earlier one, as definitions do.
    public internal(set) var audit: AuditSetting?
    /// The policy files read, in the order they were applied.
    public internal(set) var files: [String] = []
    /// The revision: SHA-256 of the bytes of the layers read, with their paths and order, in 64
    /// hexadecimal digits. Every audit record carries it, so a decision can be replayed against
    /// the policy that made it (`capctl replay`), and a changed policy is seen as changed. Flag
    /// files are not part of it: their values are recorded with each decision.
    public internal(set) var revision = Policy.revision(of: [])
    /// Capabilities and gates a file declared but that could not be read (their errors are
    /// reported already), so that references to them are not reported a second time.
    var rejectedCapabilities: Set<String> = []
    var rejectedGates: Set<String> = []

    /// An empty policy: no capabilities, no gates, no flags.
    public init() {}

    /// The revision of layers read as `layers`: each file's path, whether it was the per-user
    /// layer's, and its text, each framed by its length.
    static func revision(of layers: [(file: String, fromUserLayer: Bool, text: String)]) -> String {
        var hash = SHA256()
        for layer in layers {
            for part in [layer.file, layer.fromUserLayer ? "user" : "system", layer.text] {
                hash.update(length: part.utf8.count)
                hash.update(part.utf8)
            }
        }
        return hash.finalHex()
    }

    /// Names a flag source at `location`, after the others.
    mutating func addFlagSource(_ source: FlagSource, at location: FileLocation) {
        flagSources.append(source)
        flagSourceLocations.append(location)
        flagSourcesFromUserLayer.append(false)
    }

    /// The flag sources of the system layers alone: what a final system policy's own gates and
    /// capabilities read, so the per-user layer cannot supply a flag the system's sources do not
    /// (yet) serve. Nil when the policy is not final or the user's layer names no source.
    var systemFlagSources: [FlagSource]? {
        guard finalLocation != nil, flagSourcesFromUserLayer.contains(true) else { return nil }
        return zip(flagSources, flagSourcesFromUserLayer).filter { !$0.1 }.map(\.0)
    }

    /// This policy without its flag services (`flags: { http: }`): what a decision that reads no
    /// flag is made with.
    var withoutFlagServices: Policy {
        var policy = self
        let kept = flagSources.indices.filter { if case .http = flagSources[$0] { false } else { true } }
        policy.flagSources = kept.map { flagSources[$0] }
        policy.flagSourceLocations = kept.map { flagSourceLocations[$0] }
        policy.flagSourcesFromUserLayer = kept.map { flagSourcesFromUserLayer[$0] }
        return policy
    }

    /// Applies a later file's definitions over this policy's. A fragment of the per-user layer
    /// replaces nothing of the system's once a system file has said `final: true`.
    mutating func apply(_ fragment: Policy, fromUserLayer: Bool = false) {
        let keepsSystem = fromUserLayer && finalLocation != nil
        if !fromUserLayer, finalLocation == nil { finalLocation = fragment.finalLocation }
        for (name, var later) in fragment.capabilities.sorted(by: { $0.key < $1.key }) {
            later.fromUserLayer = fromUserLayer
            guard let earlier = capabilities[name] else {
                capabilities[name] = later
                continue
            }
            let override = PolicyOverride(
                kind: "capability", name: name, replaced: earlier.location, by: later.location)
            if keepsSystem {
                refusedOverrides.append(override.reversed)
            } else {
                overrides.append(override)
                capabilities[name] = later
            }
        }
        for (name, var later) in fragment.gates.sorted(by: { $0.key < $1.key }) {
            later.fromUserLayer = fromUserLayer
            guard let earlier = gates[name] else {
                gates[name] = later
                continue
            }
            let override = PolicyOverride(kind: "gate", name: name, replaced: earlier.location, by: later.location)
            if keepsSystem {
                refusedOverrides.append(override.reversed)
            } else {
                overrides.append(override)
                gates[name] = later
            }
        }
        if let later = fragment.audit {
            if keepsSystem, let final = finalLocation {
                // Under a final system policy the user's layer cannot change what is recorded, even
                // where the system keeps the default: its own decisions are what the trail is for.
                refusedOverrides.append(
                    PolicyOverride(
                        kind: "setting", name: "audit", replaced: later.location, by: audit?.location ?? final))
            } else {
                if let earlier = audit {
                    overrides.append(
                        PolicyOverride(kind: "setting", name: "audit", replaced: earlier.location, by: later.location))
                }
                audit = later
            }
        }
        applyFlagSources(of: fragment, belowOthers: keepsSystem, fromUserLayer: fromUserLayer)
        files += fragment.files
        rejectedCapabilities.formUnion(fragment.rejectedCapabilities)
        rejectedGates.formUnion(fragment.rejectedGates)
    }

    /// A file or a flag service named again by a later layer takes that layer's place; under a
    /// final system policy the user's sources go first instead (lowest precedence), so they can add
    /// flags but not replace the system's, and a source the system names stays where it is.
    private mutating func applyFlagSources(of fragment: Policy, belowOthers: Bool, fromUserLayer: Bool) {
        var sources: [(FlagSource, FileLocation)] = []
        for (source, location) in zip(fragment.flagSources, fragment.flagSourceLocations) {
            // Named twice in one file: the second naming is the one that counts.
            sources.removeAll {
                ($0.0.path != nil && $0.0.path == source.path) || ($0.0.url != nil && $0.0.url == source.url)
            }
            let earlier = flagSources.indices.first { index in
                (source.path != nil && flagSources[index].path == source.path)
                    || (source.url != nil && flagSources[index].url == source.url)
            }
            if let earlier {
                let override = PolicyOverride(
                    kind: "flag-source", name: Self.flagSourceName(source),
                    replaced: flagSourceLocations[earlier], by: location)
                if belowOthers {
                    refusedOverrides.append(override.reversed)
                    continue
                }
                overrides.append(override)
                flagSources.remove(at: earlier)
                flagSourceLocations.remove(at: earlier)
                flagSourcesFromUserLayer.remove(at: earlier)
            }
            sources.append((source, location))
        }
        if belowOthers {
            flagSources.insert(contentsOf: sources.map(\.0), at: 0)
            flagSourceLocations.insert(contentsOf: sources.map(\.1), at: 0)
            flagSourcesFromUserLayer.insert(contentsOf: sources.map { _ in fromUserLayer }, at: 0)
        } else {
            flagSources += sources.map(\.0)
            flagSourceLocations += sources.map(\.1)
            flagSourcesFromUserLayer += sources.map { _ in fromUserLayer }
        }
    }

    /// How overrides and origins name a flag source: its path, its URL, or "inline flags".
    public static func flagSourceName(_ source: FlagSource) -> String {
        source.path ?? source.url ?? "inline flags"
    }

    /// Whether two sources name the same file or the same service (inline sets never match).
    private static func isSameSource(_ one: FlagSource, _ other: FlagSource) -> Bool {
        (one.path != nil && one.path == other.path) || (one.url != nil && one.url == other.url)
    }
}
