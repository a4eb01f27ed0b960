public import ProcedureCore

/// Requests authorization for a capability, asking only when its status is notDetermined.
/// Its output is the resulting status; it never fails: an error is reported as
/// ``CapabilityStatus/Kind/unavailable`` with cause `error` (a failure to decide, which no
/// requirement accepts, never a pass).
///
/// Authorizations of one capability are serialized across every queue (two prompts for the
/// same password never appear at once), so a second request usually finds the first one's
/// result kept and does not ask again. Asked for a subject (a service's client), they are
/// serialized per subject's scope only: one client that never answers holds up nobody else.
/// The gated work itself is not serialized by this.
///
/// ```swift
/// let login = Authorize(admin)  // asks for the login now, not when a gate needs it
/// queue.addProcedure(login)
/// print(try await login.value())
/// ```
// Sendable by hand, as `Procedure`: it adds only Sendable `let`s.
public final class Authorize: AsyncProcedure<CapabilityStatus>, @unchecked Sendable {
    /// The capability authorized.
    public let capability: any CapabilityType
    /// The status the gate that produced this request read (notDetermined), and the turn of
    /// its key's requests it was read at (``AuthorizationTurns``).
    private let observed: (status: CapabilityStatus, turn: UInt64)?
    private let serializationKey: String

    /// The exclusivity category that serializes authorization requests for `capabilityName`.
    public static func exclusivityCategory(for capabilityName: String) -> String {
        "authorization:\(capabilityName)"
    }

    /// Creates a procedure authorizing `capability`.
    public convenience init(_ capability: some CapabilityType) {
        self.init(capability, serializedAs: nil)
    }

    /// Creates a procedure serialized with the other authorizations of `serializedAs` (the
    /// capability's name by default). Its output is the status it arrived at, which the condition
    /// that produced it decides on.
    init(
        _ capability: any CapabilityType, serializedAs key: String?,
        observed: (status: CapabilityStatus, turn: UInt64)? = nil
    ) {
        self.capability = capability
        self.observed = observed
        self.serializationKey = key ?? capability.name
        super.init(name: "Authorize(\(capability.name))")
        addExclusivityCategory(Self.exclusivityCategory(for: serializationKey))
    }

    public override func run() async throws -> CapabilityStatus {
        try await requestIfNeeded()
    }

    /// One status read per phase: the gate's read is handed on unless another request of the
    /// same key asked since (it may have kept a login, written a token); a status in memory is
    /// asked first, as it costs nothing.
    private func requestIfNeeded() async throws -> CapabilityStatus {
        let current: CapabilityStatus
        if let known = capability.knownStatus() {
            current = known
        } else if let observed, observed.turn == AuthorizationTurns.current(serializationKey) {
            current = observed.status
        } else {
            current = await capability.resolveStatus()
        }
        guard current.kind == .notDetermined, !isCancelled else { return current }
        defer { AuthorizationTurns.asked(serializationKey) }
        do {
            return try await capability.authorize(after: current)
        } catch is CancellationError where isCancelled {
            throw CancellationError()
        } catch {
            return .failure(error)
        }
    }
}
