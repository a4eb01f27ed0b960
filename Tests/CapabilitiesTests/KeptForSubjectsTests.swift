import Capabilities
import CapabilityTesting
import Testing

/// Authorizations kept for other subjects (a service's clients): per subject's scope only.
@Suite("Kept authorizations for subjects")
struct KeptForSubjectsTests {
    @Test("a kept authorization is kept per subject's session, never for this process or another subject")
    func keptPerSubject() async throws {
        let login = ScriptedCapability(name: "login")
        login.answerAuthorizations(.returns(.authorized("password accepted")))
        let kept = AnswersForAnyone(base: login).keepingAuthorization(for: .seconds(300))
        // The scope is the Linux layer's to make (KeepScopeTests); here it is given.
        func subject(uid: UInt32, session: Int32?) -> Subject {
            .process(
                SubjectProcess(
                    user: SubjectUser(uid: uid, gid: uid, supplementaryGroups: [], name: "u\(uid)"), pid: 4242,
                    startTime: 99, terminal: "pts/1", loginSession: nil,
                    keepScope: "uid=\(uid)" + (session.map { " session=\($0):7" } ?? "") + " tty=pts/1"))
        }
        let client = subject(uid: 1000, session: 10)
        // The base answers for any subject the same: the kept state is what differs.
        #expect(try await kept.forSubject(client).authorize().kind == .authorized)
        #expect(await kept.forSubject(client).resolveStatus().kind == .authorized)
        #expect(await kept.forSubject(subject(uid: 1000, session: 11)).resolveStatus().kind != .authorized)
        #expect(await kept.forSubject(subject(uid: 1001, session: 10)).resolveStatus().kind != .authorized)
        #expect(await kept.resolveStatus().kind != .authorized, "this process keeps nothing from a client")
        kept.revoke()
        #expect(await kept.forSubject(client).resolveStatus().kind != .authorized, "revoke forgets clients too")
        // A subject without a process keeps nothing.
        let byName = Subject.user(SubjectUser(uid: 1000, gid: 1000, supplementaryGroups: [], name: "u1000"))
        #expect(byName.keepScope == nil)
        #expect(await kept.forSubject(byName).resolveStatus().kind != .authorized)
    }
}

/// A scripted capability that answers the same for every subject.
private struct AnswersForAnyone: SubjectCapability {
    let base: ScriptedCapability
    var name: String { base.name }
    func status() async throws -> CapabilityStatus { try await base.status() }
    func authorize() async throws -> CapabilityStatus { try await base.authorize() }
    func forSubject(_ subject: Subject) -> any CapabilityType { self }
}
