public import FeatureFlags

/// Capabilities, flag sources and gates, merged from every policy file in precedence order:
/// a later definition of a name replaces an earlier one.
public struct Policy: Sendable {
    /// Capabilities by name.
    public internal(set) var capabilities: [String: CapabilityDeclaration] = [:]
    /// Gates by name.
    public internal(set) var gates: [String: GateDeclaration] = [:]
    /// Where flags come from, inline sets and files alike, lowest precedence first: the layer
    /// that names a source decides its place, whatever form the flags take.
    public internal(set) var flagSources: [FlagSource] = []
    /// Flag definition files (flagd format), in precedence order.
    public var flagFiles: [String] { flagSources.compactMap(\.path) }
    /// Capabilities and gates a later file defined again, replacing an earlier definition.
    public internal(set) var overrides: [PolicyOverride] = []
    /// Which decisions the audit trail records (`audit:`), when a policy file says; a later
    /// file's setting replaces an earlier one, as definitions do.
    public internal(set) var audit: AuditSetting?
    /// The policy files read, in the order they were applied.
    public internal(set) var files: [String] = []
    /// Capabilities and gates a file declared but that could not be read (their errors are
    /// reported already), so that references to them are not reported a second time.
    var rejectedCapabilities: Set<String> = []
    var rejectedGates: Set<String> = []

    /// An empty policy: no capabilities, no gates, no flags.
    public init() {}

    /// Applies a later file's definitions over this policy's.
    mutating func apply(_ fragment: Policy) {
        for (name, later) in fragment.capabilities.sorted(by: { $0.key < $1.key }) {
            if let earlier = capabilities[name] {
                overrides.append(
                    PolicyOverride(kind: "capability", name: name, replaced: earlier.location, by: later.location))
            }
        }
        for (name, later) in fragment.gates.sorted(by: { $0.key < $1.key }) {
            if let earlier = gates[name] {
                overrides.append(
                    PolicyOverride(kind: "gate", name: name, replaced: earlier.location, by: later.location))
            }
        }
        if let later = fragment.audit {
            if let earlier = audit {
                overrides.append(
                    PolicyOverride(kind: "setting", name: "audit", replaced: earlier.location, by: later.location))
            }
            audit = later
        }
        capabilities.merge(fragment.capabilities) { _, later in later }
        gates.merge(fragment.gates) { _, later in later }
        for source in fragment.flagSources {
            // A file or a flag service named again by a later layer takes that layer's place.
            if let path = source.path { flagSources.removeAll { $0.path == path } }
            if let url = source.url { flagSources.removeAll { $0.url == url } }
            flagSources.append(source)
        }
        files += fragment.files
        rejectedCapabilities.formUnion(fragment.rejectedCapabilities)
        rejectedGates.formUnion(fragment.rejectedGates)
    }
}
