import ConfigurationFiles
import Locking
import Testing

/// The one reload rule of every store: the last good value stays in force, each change and each
/// new failure is reported once.
@Suite("Reloading configuration")
struct ReloadingValueTests {
    final class Script: Sendable {
        let outcomes = Lock<[ReloadingValue<Int, ConfigurationError>.Outcome]>([])
        let events = Lock<[String]>([])
    }

    @Test("a failure keeps the last good value; a repeated failure or unchanged input says nothing")
    func lastGood() {
        let script = Script()
        let value = ReloadingValue<Int, ConfigurationError>(
            load: { script.outcomes.withLock { $0.removeFirst() } },
            onEvent: { event in
                script.events.withLock {
                    switch event {
                    case .loaded(let number): $0.append("loaded \(number)")
                    case .failed(let error): $0.append("failed \(error.message)")
                    }
                }
            })
        let broken = ConfigurationError("broken", file: "f")
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
}
