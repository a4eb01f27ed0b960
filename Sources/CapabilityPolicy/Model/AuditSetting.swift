public import ConfigurationFiles

/// Which decisions go to the audit trail (Docs/capctl.md, "Audit").
public enum AuditLevel: String, Sendable, Hashable, CaseIterable {
    /// None.
    case off
    /// Those that did not hold: denied, undecided and dismissed.
    case denials
    /// Every one.
    case all
}

/// A policy file's `audit:` setting, with where it was written.
public struct AuditSetting: Sendable, Hashable {
    /// Which decisions are recorded.
    public let level: AuditLevel
    /// Where the setting is.
    public let location: FileLocation
}
