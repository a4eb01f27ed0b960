import Locking
import Plumbing
import Testing

/// The one reload rule of every store: the last good value stays in force, each change and each
/// new failure is reported once.
@Suite("Reloading configuration")
struct ReloadingValueTests {
    struct Broken: Error, Equatable {
        let message: String
    }

    final class Script: Sendable {
        let outcomes = Lock<[ReloadingValue<Int, Broken>.Outcome]>([])
        let events = Lock<[String]>([])
    }

    @Test("a failure keeps the last good value; a repeated failure or unchanged input says nothing")
    func lastGood() {
        let script = Script()
        let value = ReloadingValue<Int, Broken>(
            load: { script.outcomes.withLock { $0.removeFirst() } },
            onEvent: { event in
                script.events.withLock {
                    switch event {
                    case .loaded(let number): $0.append("loaded \(number)")
                    case .failed(let error): $0.append("failed \(error.message)")
                    }
                }
            })
        let broken = Broken(message: "broken")
        script.outcomes.withLock {
            $0 = [.loaded(1), .unchanged, .failed(broken), .failed(broken), .loaded(2), .failed(broken)]
        }
        #expect(value.current == nil)
        value.reload()
        #expect(value.current == 1)
        value.reload()
        value.reload()
        #expect(value.current == 1)
        #expect(value.problem == broken)
        value.reload()
        value.reload()
        #expect(value.current == 2)
        #expect(value.problem == nil)
        value.reload()
        #expect(value.current == 2)
        #expect(script.events.withLock { $0 } == ["loaded 1", "failed broken", "loaded 2", "failed broken"])
    }

    @Test("a new watcher stops the one before it; stopping stops the last, once")
    func watchers() {
        let value = ReloadingValue<Int, Broken>(load: { .unchanged }, onEvent: { _ in })
        let stopped = Lock<[String]>([])
        value.keepWatching { stopped.withLock { $0.append("first") } }
        #expect(stopped.withLock { $0 }.isEmpty)
        value.keepWatching { stopped.withLock { $0.append("second") } }
        #expect(stopped.withLock { $0 } == ["first"])
        value.stopWatching()
        value.stopWatching()
        #expect(stopped.withLock { $0 } == ["first", "second"])
    }
}
