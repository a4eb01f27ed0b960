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
        func subject(uid: UInt32, session: Int32?, loginSession: UInt32? = nil) -> Subject {
            Subject(
                uid: uid, gid: uid, supplementaryGroups: [], pid: 4242, startTime: 99, session: session,
                sessionStartTime: session.map { _ in 7 }, terminal: "pts/1", loginSession: loginSession,
                userName: "u\(uid)", source: .socketPeer)
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
        let byName = Subject(
            uid: 1000, gid: 1000, supplementaryGroups: [], pid: nil, startTime: nil, userName: "u1000", source: .user)
        #expect(byName.keepScope == nil)
        #expect(subject(uid: 1000, session: 10, loginSession: 3).keepScope == "uid=1000 login-session=3")
        #expect(subject(uid: 1000, session: 10).keepScope == "uid=1000 session=10:7 tty=pts/1")
    }

    @Test("without a terminal, or with the session leader out of sight, the parent process is part of the scope")
    func parentInScope() {
        func subject(terminal: String?, sessionStart: UInt64?, parent: Int32?) -> Subject {
            Subject(
                uid: 1000, gid: 1000, supplementaryGroups: [], pid: 4242, startTime: 99, parentPid: parent,
                parentStartTime: parent.map { _ in 55 }, session: 10, sessionStartTime: sessionStart,
                terminal: terminal, userName: "u1000", source: .socketPeer)
        }
        #expect(subject(terminal: nil, sessionStart: 7, parent: 300).keepScope == "uid=1000 session=10:7 parent=300:55")
        #expect(
            subject(terminal: "pts/1", sessionStart: nil, parent: 300).keepScope == "uid=1000 tty=pts/1 parent=300:55")
        #expect(subject(terminal: nil, sessionStart: nil, parent: 300).keepScope == "uid=1000 parent=300:55")
        // Neither: only the process itself.
        #expect(subject(terminal: nil, sessionStart: nil, parent: nil).keepScope == "uid=1000 process=4242:99")
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
