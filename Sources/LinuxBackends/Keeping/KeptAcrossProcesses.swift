public import Capabilities

/// A capability whose successful authorizations outlive the process: a login kept in this
/// process (`KeptAuthorization`) and also in ``KeptLoginRecords``, so the next `capctl check`
/// in the same terminal and session does not ask again until the time runs out, as sudo does.
public struct KeptAcrossProcesses: CapabilityType {
    private let base: any CapabilityType
    private let records: KeptLoginRecords
    private let key: KeptLoginRecords.Key?
    private let duration: Duration
    private let note: String

    /// Keeps `base`'s authorizations for `duration` in `records`, for `uid` in this process's
    /// scope, voided when `fingerprint` (the capability's settings) changes. `note` says whose
    /// records they are, for the reason.
    public init(
        _ base: any CapabilityType, records: KeptLoginRecords, uid: UInt32, fingerprint: String,
        keep duration: Duration,
        note: String = ""
    ) {
        self.base = base
        self.records = records
        self.duration = duration
        self.note = note
        key = KeptLoginRecords.currentScope().map {
            KeptLoginRecords.Key(uid: uid, capability: base.name, fingerprint: fingerprint, scope: $0)
        }
    }

    public var name: String { base.name }
    public var availability: CapabilityAvailability { base.availability }

    private func kept() -> CapabilityStatus? {
        guard let key, let remaining = records.remaining(key, keep: duration) else { return nil }
        return .authorized(
            "kept from an earlier login in this terminal and session for \(remaining.components.seconds) s more\(note)")
    }

    public func status() async throws -> CapabilityStatus {
        if let kept = kept() { return kept }
        return try await base.status()
    }

    public func knownStatus() -> CapabilityStatus? {
        kept() ?? base.knownStatus()
    }

    public func authorize() async throws -> CapabilityStatus {
        if let kept = kept() { return kept }
        let status = try await base.authorize()
        // A record that cannot be written only means the next process asks again.
        if status.kind == .authorized, let key { try? records.keep(key, for: duration) }
        return status
    }

    public func statusUpdates() -> CapabilityStatusUpdates { base.statusUpdates() }
}
