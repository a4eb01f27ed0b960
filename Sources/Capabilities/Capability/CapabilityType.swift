/// Something a program may need before it does some work: an administrator's login, write
/// access to a directory, a reachable host, a feature flag, a Linux capability.
///
/// A capability answers two questions. ``status()`` reads the current state without side
/// effects and never prompts. ``authorize()`` may interact (ask for a password, for example)
/// and returns the new status. Its ``requirement`` decides whether a status is good enough.
///
/// Gate a procedure on a capability with ``AuthorizedFor``; read or request it on its own
/// with ``GetAuthorizationStatus`` and ``Authorize``.
public protocol CapabilityType: Sendable {
    /// The kind of requirement this capability checks statuses against.
    associatedtype Requirement: CapabilityRequirement = GrantRequirement

    /// A short name, unique among the capabilities a program uses, such as `pam:admin`.
    /// Authorization requests are serialized per name.
    var name: String { get }

    /// What a status must show for the capability to count as held.
    var requirement: Requirement { get }

    /// Whether the backend exists on this system. Defaults to ``CapabilityAvailability/available``.
    var availability: CapabilityAvailability { get }

    /// Reads the current status: no side effects, no prompts. A thrown error makes the status
    /// ``CapabilityStatus/Kind/unavailable`` with cause `error` and the error as reason.
    func status() async throws -> CapabilityStatus

    /// Requests authorization, which may interact with a person, and returns the new status.
    /// The default returns ``status()``, for capabilities that cannot be granted by asking.
    func authorize() async throws -> CapabilityStatus

    /// Requests authorization given `status`, the status just read (notDetermined), so that a
    /// backend which reads its status before asking need not read it again: ``Authorize`` hands
    /// on what it read. Defaults to ``authorize()``. Backends that read their status in
    /// ``authorize()``, and wrappers (which pass it on to their base), implement it.
    func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus

    /// The current status when it is known at once, without I/O or blocking (a kept
    /// authorization, a value held in memory); nil when finding out needs ``status()``.
    /// Gates use it to decide without switching to a task. Defaults to nil. A backend whose
    /// ``status()`` would only block the thread it runs on (file access) may answer here when the
    /// calling thread is one a service lets block for its client.
    func knownStatus() -> CapabilityStatus?

    /// The status now and after every change, for as long as the caller iterates. The
    /// default reads ``status()`` every five seconds and reports changes; backends that
    /// hear of changes (network events, file edits, expiring authorizations) report them at once.
    func statusUpdates() -> CapabilityStatusUpdates
}

extension CapabilityType {
    public var availability: CapabilityAvailability { .available }

    public func authorize() async throws -> CapabilityStatus {
        try await status()
    }

    public func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus {
        try await authorize()
    }

    public func knownStatus() -> CapabilityStatus? { nil }

    public func statusUpdates() -> CapabilityStatusUpdates {
        .polling(self, every: .seconds(5))
    }

    /// The current status, failing closed: ``CapabilityStatus/Kind/unavailable`` when the
    /// backend is missing, and unavailable with cause `error` (carrying the error) when reading
    /// the status throws.
    public func resolveStatus() async -> CapabilityStatus {
        if case .unavailable(let reason) = availability { return .unavailable(reason, cause: .backendMissing) }
        do {
            return try await status()
        } catch {
            return .failure(error)
        }
    }

    /// Whether ``requirement`` is met by `status`.
    public func isMet(by status: CapabilityStatus) -> Bool {
        requirement.isMet(by: status)
    }
}

extension CapabilityType where Requirement == GrantRequirement {
    /// Any authorized status.
    public var requirement: GrantRequirement { .authorized }
}
