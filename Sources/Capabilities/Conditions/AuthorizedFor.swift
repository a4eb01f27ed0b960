import Plumbing
public import ProcedureCore
import Synchronization

/// A condition satisfied when a capability's status meets its requirement.
///
/// When the status is notDetermined, the condition produces an ``Authorize`` procedure, which
/// may ask a person; the queue runs it only if every other condition can still pass
/// (non-interactive checks come first). Then the condition is satisfied if the new status
/// meets the requirement, and otherwise fails with ``CapabilityError/unauthorized(capability:status:requirement:)``.
/// An unavailable status (a missing backend or resource, or an error while reading the status)
/// leaves it undecided with ``CapabilityError/unavailable(capability:status:)``: it never holds,
/// and neither does its negation.
///
/// Compose it like any condition: `Silent(AuthorizedFor(x))` only reads the status and never
/// asks; `Negated(Silent(AuthorizedFor(x)))` runs only while `x` is not authorized.
///
/// ```swift
/// let backup = BlockProcedure(name: "backup") { try runBackup() }
/// backup.addCondition(AuthorizedFor(admin))  // asks for the administrator's login if it is not kept
/// queue.addProcedure(backup)
/// ```
public struct AuthorizedFor: ProcedureCondition {
    // One shared reference keeps the condition small.
    private final class Gate: Sendable {
        let capability: any CapabilityType
        let name: String
        let requirement: any CapabilityRequirement
        let requirementText: String
        /// Read once: availability does not change within a process.
        let unavailableReason: String?
        /// What this gate's authorizations are serialized with (``Authorize``).
        let serializationKey: String
        /// Where a kept authorization is read in place (``KeptReasonReading``): 0 until a status
        /// known in memory first satisfied the gate, 2 after that, then 1 (nowhere) or the address
        /// of a retained ``KeptReader``. Looked for at the second such pass, not at the first: the
        /// cast's first use in a process scans every conformance record of the binary, which a
        /// process that passes a gate once (`capctl check`) should not pay. Written at most twice,
        /// then only read. A word rather than a `Mutex<enum>`: the lock and the reader's retain
        /// cost 15 to 70 ns a check, and the gated row its target (Performance.md, issue 54).
        private let keptReader = Atomic<UInt>(0)

        init(_ capability: any CapabilityType, label: String?, serializationKey: String? = nil) {
            self.capability = capability
            self.name = "AuthorizedFor(\(label ?? capability.name))"
            self.serializationKey = serializationKey ?? capability.name
            self.requirement = capability.requirement
            self.requirementText = capability.requirement.description
            if case .unavailable(let reason) = capability.availability {
                unavailableReason = reason
            } else {
                unavailableReason = nil
            }
        }

        deinit {
            let state = keptReader.load(ordering: .acquiring)
            if state > 2 { Unmanaged<KeptReader>.fromOpaque(UnsafeRawPointer(bitPattern: state)!).release() }
        }

        /// A kept authorization's reason read in place, when the capability keeps one that
        /// meets this gate's requirement; nil when it does not, or cannot be read that way.
        func keptReason() -> String? {
            let state = keptReader.load(ordering: .acquiring)
            if state > 2 {
                return Unmanaged<KeptReader>.fromOpaque(UnsafeRawPointer(bitPattern: state)!)
                    ._withUnsafeGuaranteedRef { $0.reason() }
            }
            if state == 2 { findKeptReader() }
            return nil
        }

        /// A status known in memory satisfied the gate: the next time, look for a reader.
        func passedOnKnownStatus() {
            guard keptReader.load(ordering: .relaxed) == 0 else { return }
            _ = keptReader.compareExchange(expected: 0, desired: 2, ordering: .relaxed)
        }

        private func findKeptReader() {
            var found: UInt = 1
            if let reader = capability as? any KeptReasonReading, let requirement = requirement as? GrantRequirement {
                found = UInt(bitPattern: Unmanaged.passRetained(KeptReader(reader, requirement)).toOpaque())
            }
            let (exchanged, _) = keptReader.compareExchange(
                expected: 2, desired: found, ordering: .acquiringAndReleasing)
            if !exchanged, found > 2 {
                Unmanaged<KeptReader>.fromOpaque(UnsafeRawPointer(bitPattern: found)!).release()
            }
        }

        /// `turn` is ``AuthorizationTurns``' count for this gate's key taken before `status` was
        /// read through `status()`, handed on with it when the gate needs interaction. A status
        /// known in memory is not handed on: the authorization asks memory again at no cost.
        func result(
            for status: consuming CapabilityStatus, allowsInteraction: Bool, turn: UInt64? = nil
        ) -> ConditionResult {
            // Unavailable covers errors too: nothing was decided, so no negation may pass on it.
            if status.kind == .unavailable {
                return .undecided(
                    "unavailable: \(status.reason)",
                    error: CapabilityError.unavailable(capability: capability.name, status: status))
            }
            if requirement.isMet(by: status) {
                // The reason is moved out rather than copied: it is usually one string shared by
                // every procedure the status gates, so each copy is a contended reference count.
                var reason = ""
                swap(&reason, &status.reason)
                return .satisfied(reason)
            }
            if status.kind == .notDetermined, allowsInteraction {
                guard let turn else { return .needsInteraction(status.reason) }
                return .needsInteraction(status.reason, finding: ObservedStatus(status, turn: turn))
            }
            return .failed(
                "\(status.kind.rawValue), requires \(requirementText): \(status.reason)",
                error: CapabilityError.unauthorized(
                    capability: capability.name, status: status, requirement: requirementText))
        }
    }

    /// A gate's in-place reader of its capability's kept authorization.
    private final class KeptReader: Sendable {
        let reader: any KeptReasonReading
        let requirement: GrantRequirement
        init(_ reader: any KeptReasonReading, _ requirement: GrantRequirement) {
            (self.reader, self.requirement) = (reader, requirement)
        }
        func reason() -> String? { reader.keptReason(meeting: requirement) }
    }

    private let gate: Gate

    /// Creates a condition on `capability`.
    public init(_ capability: some CapabilityType) {
        gate = Gate(capability, label: nil)
    }

    /// Creates a condition on `capability`, shown in explanations as `AuthorizedFor(label)`
    /// (a policy's name for it, for example). Authorization requests are still serialized by
    /// the capability's own name.
    public init(_ capability: some CapabilityType, label: String) {
        gate = Gate(capability, label: label)
    }

    /// Creates a condition on `capability` asked about `subject` instead of this process (a
    /// service's client): satisfied when the capability's answer for the subject meets its
    /// requirement; undecided when the capability cannot answer for another subject.
    /// Its authorizations are serialized per subject (``Subject/keepScope``), not across subjects:
    /// a client that never answers its question holds up no other client.
    public init(_ capability: some CapabilityType, subject: Subject, label: String? = nil) {
        gate = Gate(
            capability.evaluated(for: subject), label: label ?? "\(capability.name) for \(subject)",
            serializationKey: "\(capability.name) for \(subject.serializationScope)")
    }

    /// Creates a condition on `capability`, already made to answer for `subject` (as a policy
    /// makes its capabilities), labelled `label`, with its authorizations serialized per subject.
    package init(_ capability: some CapabilityType, label: String, answeringFor subject: Subject) {
        gate = Gate(capability, label: label, serializationKey: "\(capability.name) for \(subject.serializationScope)")
    }

    /// The capability this condition checks.
    public var capability: any CapabilityType { gate.capability }

    public var name: String { gate.name }

    public var producesDependency: Bool { true }

    public func makeDependency(for procedure: Procedure) -> Procedure? {
        Authorize(gate.capability, serializedAs: gate.serializationKey)
    }

    /// The authorization, starting from the status the first phase read.
    public func makeDependency(for procedure: Procedure, after firstAnswer: ConditionResult?) -> Procedure? {
        Authorize(
            gate.capability, serializedAs: gate.serializationKey,
            observed: (firstAnswer?.finding as? ObservedStatus).map { ($0.status, $0.turn) })
    }

    public func evaluateImmediately(for procedure: Procedure, context: ConditionContext) -> ConditionResult? {
        // After the authorization ran, its output decides: the status it arrived at, handed on.
        if let authorize = context.producedDependency as? Authorize, case .success(let status)? = authorize.output {
            return gate.result(for: status, allowsInteraction: false)
        }
        if let reason = gate.unavailableReason {
            return gate.result(for: .unavailable(reason, cause: .backendMissing), allowsInteraction: false)
        }
        // What the status would give, without the status: satisfied with the kept reason.
        if let reason = gate.keptReason() { return .satisfied(reason) }
        guard let known = gate.capability.knownStatus() else { return nil }
        let result = gate.result(for: known, allowsInteraction: context.allowsInteraction)
        if result.verdict == .satisfied { gate.passedOnKnownStatus() }
        return result
    }

    public func evaluate(
        for procedure: Procedure, context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        if let immediate = evaluateImmediately(for: procedure, context: context) {
            completion(immediate)
            return
        }
        let (gate, allowsInteraction) = (self.gate, context.allowsInteraction)
        // Inside a TaskWait (a service's client thread), on that thread: no hop to the pool.
        let check = Task(executorPreference: TaskWait.executor) {
            let turn = AuthorizationTurns.current(gate.serializationKey)
            let status = await gate.capability.resolveStatus()
            completion(gate.result(for: status, allowsInteraction: allowsInteraction, turn: turn))
        }
        // A cancelled procedure's check stops too (a name lookup, a D-Bus call): its answer would go unheard.
        context.whenAbandoned { check.cancel() }
    }
}

/// A status a gate read, and the turn it was read at, handed on to the authorization it produces.
private final class ObservedStatus: Sendable {
    let status: CapabilityStatus
    let turn: UInt64
    init(_ status: CapabilityStatus, turn: UInt64) { (self.status, self.turn) = (status, turn) }
}
