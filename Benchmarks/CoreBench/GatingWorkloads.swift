import Capabilities
import CapabilityTesting
import FeatureFlags
import Glibc
import LinuxBackends
import LinuxPolicy
import ProcedureCore

/// Workloads for the gating layer: flag evaluation per call, and operations gated by a
/// capability whose status is already known.
enum GatingWorkloads {
    static let flagFile = """
        {"flags": {
          "static-flag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
          "targeted-flag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [
              {"in": [{"var": "user"}, ["alice", "bob", "carol"]]}, "on",
              {"sem_ver": [{"var": "version"}, ">=", "2.0.0"]}, "on",
              {"ends_with": [{"var": "email"}, "@example.com"]}, "on",
              "off"]}}
        }}
        """

    static func makeStore() -> FlagStore {
        // The host context is the base, as in a real service.
        FlagStore([try! FlagSet.parse(flagFile, file: "bench.json")], context: .host)
    }

    /// Seconds for `count` evaluations of the static Boolean flag.
    static func staticFlag(_ store: FlagStore, _ count: Int) -> (seconds: Double, on: Int) {
        var on = 0
        let start = ContinuousClock.now
        for _ in 0..<count where store.value("static-flag", default: false) { on += 1 }
        return (Workloads.seconds(since: start), on)
    }

    /// Seconds for `count` evaluations of the static Boolean flag through an OpenFeature client
    /// (no hooks, no context): what the API's layering costs on top of the store.
    static func staticFlag(_ client: FlagClient, _ count: Int) -> (seconds: Double, on: Int) {
        var on = 0
        let start = ContinuousClock.now
        for _ in 0..<count where client.boolean("static-flag", default: false) { on += 1 }
        return (Workloads.seconds(since: start), on)
    }

    /// Seconds for `count` evaluations of the flag with three targeting rules; the context
    /// matches only the last rule, so every rule runs.
    static func targetedFlag(_ store: FlagStore, _ count: Int) -> (seconds: Double, on: Int) {
        let context = FlagEvaluationContext(attributes: [
            "user": "dave", "version": "1.4.2", "email": "dave@example.com",
        ])
        var on = 0
        let start = ContinuousClock.now
        for _ in 0..<count where store.value("targeted-flag", default: false, context: context) { on += 1 }
        return (Workloads.seconds(since: start), on)
    }

    /// Seconds for `count` lookups in a plain dictionary of Booleans: the floor any flag lookup pays.
    static func dictionaryLookup(_ count: Int) -> (seconds: Double, on: Int) {
        let flags = ["static-flag": true, "other": false]
        var on = 0
        let start = ContinuousClock.now
        for _ in 0..<count where flags["static-flag"] ?? false { on += 1 }
        return (Workloads.seconds(since: start), on)
    }

    /// A capability authorized a moment ago and kept, as after a PAM login: its status is known.
    static func keptCapability() async -> KeptAuthorization<ScriptedCapability> {
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("password accepted")))
        let admin = login.keepingAuthorization(for: .seconds(3600))
        _ = try? await admin.authorize()
        return admin
    }

    /// A capability whose status is always known and authorized, with no lock, clock or shared
    /// string behind it: gating on it measures `AuthorizedFor` itself, apart from the status.
    struct ConstantCapability: CapabilityType {
        var name: String { "constant" }
        var requirement: GrantRequirement { GrantRequirement() }
        func status() async throws -> CapabilityStatus { .authorized("constant") }
        func knownStatus() -> CapabilityStatus? { .authorized("constant") }
        func authorize() async throws -> CapabilityStatus { .authorized("constant") }
    }

    /// `count` no-op procedures, each gated by `AuthorizedFor(capability)` when given.
    static func gatedProcedures(_ count: Int, capability: (any CapabilityType)?) async -> Double {
        guard let capability else { return await Workloads.timeProcedures(count) { _, _ in BlockProcedure {} } }
        let condition = AuthorizedFor(capability)
        return await Workloads.timeProcedures(count) { _, _ in
            // Typed as the base class, as in the conditions workload: held as a BlockProcedure,
            // Swift 6.3 retained and released it around `addCondition` (about 10 ns of the
            // benchmark's own per procedure, measured in the make phase).
            let procedure: Procedure = BlockProcedure {}
            procedure.addCondition(condition)
            return procedure
        }
    }

    /// `count` no-op procedures, each gated by all of `capabilities` (AuthorizedFor each).
    static func gatedProcedures(_ count: Int, all capabilities: [any CapabilityType]) async -> Double {
        let conditions = capabilities.map { AuthorizedFor($0) }
        return await Workloads.timeProcedures(count) { _, _ in
            let procedure: Procedure = BlockProcedure {}
            for condition in conditions { procedure.addCondition(condition) }
            return procedure
        }
    }

    /// The gate "this user, this group, a kept login", for this process and for a subject with
    /// this process's ids (a socket peer or a process, as a service decides for a client).
    static func userGroupKept(subject: Subject?) async throws -> [any CapabilityType] {
        let identity = ProcessIdentity.current()
        let user = try RunsAsUser(String(identity.effectiveUser.id))
        let group = try MemberOfGroup(String(identity.effectiveGroup.id))
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("password accepted")))
        let kept = LoginForAnyone(base: login).keepingAuthorization(for: .seconds(3600))
        guard let subject else {
            _ = try? await kept.authorize()
            return [user, group, kept]
        }
        // The login is kept for the subject's session, as a service keeps a client's.
        let keptForSubject = kept.evaluated(for: subject)
        _ = try? await keptForSubject.authorize()
        return [user.evaluated(for: subject), group.evaluated(for: subject), keptForSubject]
    }

    /// A scripted login that answers for any subject, as a PAM login does for a client.
    struct LoginForAnyone: SubjectCapability {
        let base: ScriptedCapability
        var name: String { base.name }
        func status() async throws -> CapabilityStatus { try await base.status() }
        func knownStatus() -> CapabilityStatus? { base.knownStatus() }
        func authorize() async throws -> CapabilityStatus { try await base.authorize() }
        func forSubject(_ subject: Subject) -> any CapabilityType { self }
    }

    /// Nanoseconds per audit record written to `destination`, and how many were not taken.
    static func auditRecord(_ count: Int, destination: AuditTrail.Destination) -> (nanoseconds: Double, failed: Int) {
        let trail = AuditTrail(level: .all, destination: destination)
        let record = AuditRecord(
            action: "check", gate: "export", outcome: .fails, reasons: "AuthorizedFor(admin): denied")
        let start = ContinuousClock.now
        for _ in 0..<count { trail.record(record) }
        return (Workloads.seconds(since: start) * 1e9 / Double(count), trail.failedWrites)
    }

    /// Nanoseconds a decision spends recording itself when records come at a pace the receiver
    /// keeps up with (a pause after each, not timed): the cost a decision adds, apart from the
    /// receiver's own throughput, which back-to-back records measure instead.
    static func pacedAuditRecord(_ count: Int, destination: AuditTrail.Destination) -> Double {
        let trail = AuditTrail(level: .all, destination: destination)
        let record = AuditRecord(
            action: "check", gate: "export", outcome: .fails, reasons: "AuthorizedFor(admin): denied")
        var total = Duration.zero
        for _ in 0..<count {
            let start = ContinuousClock.now
            trail.record(record)
            total += ContinuousClock.now - start
            usleep(200)
        }
        return Double(total.components.seconds) * 1e9 / Double(count)
            + Double(total.components.attoseconds) / 1e9 / Double(count)
    }

    /// Whether the systemd journal runs here (its socket is there).
    static var journalRuns: Bool {
        var info = stat()
        return stat("/run/systemd/journal/socket", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }
}
