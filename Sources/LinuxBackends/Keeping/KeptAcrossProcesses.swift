public import Capabilities
import Plumbing

/// A capability whose successful authorizations outlive the process: a login kept in this
/// process (`KeptAuthorization`) and also in ``KeptLoginRecords``, so the next `capctl check`
/// in the same session and terminal (or from the same parent process) does not ask again until
/// the time runs out, as sudo does.
///
/// ```swift
/// // A login that the next run of the command still counts, for five minutes in this session.
/// let records = KeptLoginRecords(directory: "/run/user/1000/myservice/keep")
/// let kept = KeptAcrossProcesses(pamAdmin, records: records, uid: 1000, fingerprint: "v1", keep: .seconds(300))
/// export.addCondition(AuthorizedFor(kept))
/// ```
public struct KeptAcrossProcesses: CapabilityType {
    private let base: any CapabilityType
    /// What answers for other subjects, when it is not `base`.
    private let subjectBase: (any CapabilityType)?
    private let records: KeptLoginRecords
    private let key: KeptLoginRecords.Key?
    private let fingerprint: String
    private let duration: Duration
    private let note: String

    /// Keeps `base`'s authorizations for `duration` in `records`, for `uid` in this process's
    /// scope, voided when `fingerprint` (the capability's settings) changes. `note` says whose
    /// records they are, for the reason.
    ///
    /// `subjectBase` answers for other subjects (a service's clients) in place of `base`: give the
    /// login without its in-process keeping, so a client's login is kept in the records alone and
    /// ``KeptLoginRecords/forget(uid:)`` ends it for the very next request.
    public init(
        _ base: any CapabilityType, records: KeptLoginRecords, uid: UInt32, fingerprint: String,
        keep duration: Duration, note: String = "", subjectBase: (any CapabilityType)? = nil
    ) {
        self.init(
            base, subjectBase: subjectBase, records: records,
            key: KeptLoginRecords.currentScope().map {
                KeptLoginRecords.Key(uid: uid, capability: base.name, fingerprint: fingerprint, scope: $0)
            }, fingerprint: fingerprint, keep: duration, note: note)
    }

    private init(
        _ base: any CapabilityType, subjectBase: (any CapabilityType)?, records: KeptLoginRecords,
        key: KeptLoginRecords.Key?, fingerprint: String, keep duration: Duration, note: String
    ) {
        self.base = base
        self.subjectBase = subjectBase
        self.records = records
        self.key = key
        self.fingerprint = fingerprint
        self.duration = duration
        self.note = note
    }

    public var name: String { base.name }
    public var availability: CapabilityAvailability { base.availability }

    /// The kept login, or why none is used here (for the reason of the status that asks).
    private func lookup() -> Result<CapabilityStatus, NotKept> {
        guard let key else { return .failure(NotKept(reason: "no login session or parent process to keep it for")) }
        switch records.lookup(key, keep: duration) {
        case .kept(let remaining):
            return .success(
                .authorized(
                    "kept from an earlier login in this terminal and session for \(remaining.components.seconds) s more\(note)"
                ))
        case .notKept(let reason):
            return .failure(NotKept(reason: reason))
        }
    }

    private struct NotKept: Error {
        let reason: String
    }

    /// Reads the record on a thread of its own (a trusted-file read), then asks the login; a
    /// status that is not authorized says why no kept login was used.
    public func status() async throws -> CapabilityStatus {
        let capability = self
        switch try await BlockingWork.value({ capability.lookup() }) {
        case .success(let kept):
            return kept
        case .failure(let notKept):
            var status = try await base.status()
            if status.kind != .authorized { status.reason += "; no kept login: \(notKept.reason)" }
            return status
        }
    }

    /// A login this process holds in memory answers inline; the record on disk is read only by
    /// ``status()`` (a file read is I/O).
    public func knownStatus() -> CapabilityStatus? {
        guard let known = base.knownStatus(), known.kind == .authorized else { return nil }
        return known
    }

    public func authorize() async throws -> CapabilityStatus {
        let capability = self
        if case .success(let kept) = try await BlockingWork.value({ capability.lookup() }) { return kept }
        return kept(try await base.authorize())
    }

    /// As ``authorize()``, without reading the record again: `status` was read through
    /// ``status()``, which read it (a login kept meanwhile by this process is the base's
    /// ``knownStatus()``, which `Authorize` asks first).
    public func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus {
        kept(try await base.authorize(after: status))
    }

    /// `status`, recorded for later processes when it is authorized.
    private func kept(_ status: CapabilityStatus) -> CapabilityStatus {
        guard status.kind == .authorized else { return status }
        // A record that cannot be written only means the next process asks again; the reason says so.
        guard let key else {
            return .authorized(
                status.reason + "; not kept across processes: no login session or parent process to keep it for",
                grants: status.grants)
        }
        do throws(KeptRecordError) {
            try records.keep(key, for: duration)
        } catch {
            return .authorized(status.reason + "; not kept across processes: \(error)", grants: status.grants)
        }
        return status
    }

    public func statusUpdates() -> CapabilityStatusUpdates { base.statusUpdates() }
}

extension KeptAcrossProcesses: KeptLoginExtending {
    public func extendKeptLogin() async throws -> KeptLoginExtension? {
        guard let key else { return nil }
        let (records, duration) = (self.records, self.duration)
        let extended = try await BlockingWork.value { () -> Result<Duration?, KeptRecordError> in
            do throws(KeptRecordError) {
                return .success(try records.extend(key, for: duration))
            } catch {
                return .failure(error)
            }
        }
        switch extended {
        case .success(let kept?):
            return KeptLoginExtension(
                status: .authorized("kept login extended: good for \(kept.components.seconds) s from now\(note)"),
                goodFor: kept)
        case .success(nil):
            return nil
        case .failure(let error):
            // The record still counts until it ends; it could not be made to last longer.
            guard case .success(let kept) = lookup() else { return nil }
            return KeptLoginExtension(status: .authorized(kept.reason + "; not extended: \(error)"), goodFor: nil)
        }
    }
}

/// A capability whose kept login can be made good for its whole keep again without asking, as
/// `sudo -v` extends sudo's timestamp (`capctl authorize NAME --extend`).
///
/// ```swift
/// let capability: any CapabilityType = pamAdmin
/// if let extending = capability as? any KeptLoginExtending, let extended = try await extending.extendKeptLogin() {
///     print(extended.status.reason)  // kept login extended: good for 300 s from now
/// }
/// ```
public protocol KeptLoginExtending: CapabilityType {
    /// The kept login written again to last its whole keep from now, or nil when no kept login
    /// counts here (ask as `authorize()` does).
    func extendKeptLogin() async throws -> KeptLoginExtension?
}

/// What extending a kept login came to: the capability's status, and how long from now the
/// login is good for when it was made to last longer.
///
/// ```swift
/// let extended = KeptLoginExtension(status: .authorized("kept login extended"), goodFor: .seconds(300))
/// print(extended.goodFor.map { "good for \($0)" } ?? "not extended")
/// ```
public struct KeptLoginExtension: Sendable {
    /// The capability's status now: authorized, by the kept login.
    public let status: CapabilityStatus
    /// How long from now the kept login is good for; nil when it counts but was not made to last
    /// longer (its record could not be written again, or the capability needs no login here).
    public let goodFor: Duration?

    /// An extension that left the capability `status`, good for `goodFor` from now.
    public init(status: CapabilityStatus, goodFor: Duration?) {
        self.status = status
        self.goodFor = goodFor
    }
}

extension KeptAcrossProcesses: SubjectCapability {
    /// The base as it answers for `subject`, with records kept for the subject (its uid and
    /// `Subject.keepScope`) rather than for this process: a client's login outlives one
    /// connection and the service's restarts, within the client's session. A subject without a
    /// scope (a user by name) has no records.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        let asked = (subjectBase ?? base).evaluated(for: subject)
        return KeptAcrossProcesses(
            asked, subjectBase: nil, records: records,
            key: subject.keepScope.map {
                KeptLoginRecords.Key(
                    uid: subject.uid, capability: asked.name, fingerprint: fingerprint,
                    scope: KeptLoginRecords.clientScope($0))
            }, fingerprint: fingerprint, keep: duration, note: note)
    }
}
