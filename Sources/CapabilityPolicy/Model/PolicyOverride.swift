public import ConfigurationFiles

/// A capability, gate or setting that a later policy file defined again: the later definition is the one
/// in force. `capctl validate` reports each, so an override is never silent.
public struct PolicyOverride: Sendable, Hashable, CustomStringConvertible {
    /// `capability`, `gate`, `setting` or `flag-source`.
    public let kind: String
    /// The capability's, gate's or setting's name.
    public let name: String
    /// Where the replaced definition was.
    public let replaced: FileLocation
    /// Where the definition in force is.
    public let by: FileLocation

    /// The same two definitions the other way round: for a replacement that was refused, the
    /// definition that stays is `by`.
    var reversed: PolicyOverride { PolicyOverride(kind: kind, name: name, replaced: by, by: replaced) }

    /// `FILE:LINE:COLUMN: gate "x" replaces the one at FILE:LINE:COLUMN`.
    public var description: String { "\(by): \(kind) \"\(name)\" replaces the one at \(replaced)" }
}
