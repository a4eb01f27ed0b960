public import FeatureFlags

/// Capabilities, flag sources and gates, merged from every policy file in precedence order:
/// a later definition of a name replaces an earlier one.
public struct Policy: Sendable {
    /// Capabilities by name.
    public internal(set) var capabilities: [String: CapabilityDeclaration] = [:]
    /// Gates by name.
    public internal(set) var gates: [String: GateDeclaration] = [:]
    /// Flag definition files (flagd format), in precedence order.
    public internal(set) var flagFiles: [String] = []
    /// Flags written inline in policy files, in precedence order.
    public internal(set) var inlineFlags: [FlagSet] = []
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
        capabilities.merge(fragment.capabilities) { _, later in later }
        gates.merge(fragment.gates) { _, later in later }
        flagFiles += fragment.flagFiles.filter { !flagFiles.contains($0) }
        inlineFlags += fragment.inlineFlags
        files += fragment.files
        rejectedCapabilities.formUnion(fragment.rejectedCapabilities)
        rejectedGates.formUnion(fragment.rejectedGates)
    }
}
