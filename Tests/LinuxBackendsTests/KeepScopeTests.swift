import Capabilities
import Glibc
import LinuxBackends
import Testing

/// What a kept login is kept for: one rule for this process and for a service's clients.
@Suite
struct KeepScopeTests {
    @Test("the session and terminal, or the session alone; the parent where the session is out of sight")
    func scopes() {
        let process = (pid: Int32(4242), startTime: UInt64(99))
        let session = (id: Int32(10), leaderStart: UInt64(7))
        let parent = (pid: Int32(300), startTime: UInt64(55))
        func scope(_ parts: KeepScope.Parts) -> String { KeepScope.scope(parts) }
        #expect(
            scope(.init(uid: 1000, loginSession: 3, session: session, terminal: "pts/1", process: process))
                == "uid=1000 login-session=3 session=10:7 tty=pts/1")
        // One login's terminals are not one scope (polkit's keep would share them).
        #expect(
            scope(.init(uid: 1000, loginSession: 3, session: session, terminal: "pts/2", process: process))
                != scope(.init(uid: 1000, loginSession: 3, session: session, terminal: "pts/1", process: process)))
        #expect(
            scope(.init(uid: 1000, loginSession: 3, parent: parent, process: process))
                == "uid=1000 login-session=3 parent=300:55")
        #expect(
            scope(.init(uid: 1000, loginSession: 3, session: session, parent: parent, process: process))
                == "uid=1000 login-session=3 session=10:7")
        #expect(
            scope(.init(uid: 1000, session: session, terminal: "pts/1", parent: parent, process: process))
                == "uid=1000 session=10:7 tty=pts/1")
        #expect(
            scope(.init(uid: 1000, session: session, parent: parent, process: process)) == "uid=1000 session=10:7")
        #expect(
            scope(.init(uid: 1000, terminal: "pts/1", parent: parent, process: process))
                == "uid=1000 tty=pts/1 parent=300:55")
        #expect(scope(.init(uid: 1000, parent: parent, process: process)) == "uid=1000 parent=300:55")
        // Neither: only the process itself.
        #expect(scope(.init(uid: 1000, process: process)) == "uid=1000 process=4242:99")
    }

    @Test("this process's scope is made by the same rule as a subject's for it")
    func thisProcessAsSubject() throws {
        let subject = try Subject.process(getpid())
        let current = try #require(KeptLoginRecords.currentScope(), "a test run has a session or a parent")
        #expect(subject.keepScope == current)
    }
}
