import Capabilities
import Glibc
import LinuxBackends

/// A login capability that root's processes hold without being asked, for a policy that says
/// so (`root: pass`): what polkit does for uid 0 and sudo for root. Everyone else is asked as
/// the capability asks. Without the setting root is asked like anyone (capctl's default: a
/// process running as root is not a person at a keyboard).
struct RootWithoutLogin: SubjectCapability {
    let base: any CapabilityType
    /// Whether the process this answers for runs as root.
    let answersForRoot: Bool

    /// `base` as it answers for this process.
    init(_ base: any CapabilityType) {
        self.init(base, answersForRoot: geteuid() == 0)
    }

    private init(_ base: any CapabilityType, answersForRoot: Bool) {
        self.base = base
        self.answersForRoot = answersForRoot
    }

    var name: String { base.name }
    var availability: CapabilityAvailability { base.availability }

    private var rootStatus: CapabilityStatus {
        .authorized("root's processes hold it without a login (the policy's root: pass)")
    }

    func status() async throws -> CapabilityStatus {
        answersForRoot ? rootStatus : try await base.status()
    }

    func authorize() async throws -> CapabilityStatus {
        answersForRoot ? rootStatus : try await base.authorize()
    }

    func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus {
        answersForRoot ? rootStatus : try await base.authorize(after: status)
    }

    func knownStatus() -> CapabilityStatus? {
        answersForRoot ? rootStatus : base.knownStatus()
    }

    func statusUpdates() -> CapabilityStatusUpdates {
        base.statusUpdates()
    }

    func forSubject(_ subject: Subject) -> any CapabilityType {
        RootWithoutLogin(base.evaluated(for: subject), answersForRoot: subject.uid == 0)
    }
}

extension RootWithoutLogin: KeptLoginExtending {
    func extendKeptLogin() async throws -> KeptLoginExtension? {
        // Root needs no login here: nothing is kept, so nothing is extended.
        if answersForRoot { return KeptLoginExtension(status: rootStatus, goodFor: nil) }
        return try await (base as? any KeptLoginExtending)?.extendKeptLogin()
    }
}
