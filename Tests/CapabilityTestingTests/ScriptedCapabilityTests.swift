import Capabilities
import CapabilityTesting
import Testing

/// The test double behaves as its documentation says, so tests built on it test the code, not
/// the double.
@Suite("Scripted capability")
struct ScriptedCapabilityTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "broken" }
    }

    @Test("status() reports what was set and counts the reads; a failing read throws until the status is set")
    func statusReads() async throws {
        let capability = ScriptedCapability(name: "c", status: .denied("no"))
        #expect(try await capability.status().kind == .denied)
        capability.setStatus(.authorized("yes"))
        #expect(try await capability.status().kind == .authorized)
        capability.failStatusReads(with: Broken())
        await #expect(throws: Broken.self) { try await capability.status() }
        #expect(capability.knownStatus() == nil, "a failing read is not known at once")
        #expect(await capability.resolveStatus().kind == .unavailable)
        capability.setStatus(.denied("again"))
        #expect(capability.knownStatus()?.kind == .denied)
        #expect(capability.statusReadCount == 6)
    }

    @Test("knownStatus() answers only with answersAtOnce")
    func knownStatus() {
        #expect(ScriptedCapability(name: "a", status: .denied("no")).knownStatus()?.kind == .denied)
        #expect(ScriptedCapability(name: "b", status: .denied("no"), answersAtOnce: false).knownStatus() == nil)
    }

    @Test("authorize() follows the queued answers in order, then returns the status unchanged")
    func answers() async throws {
        let capability = ScriptedCapability(name: "c")
        capability.answerAuthorizations(.returns(.authorized("once")), .fails(Broken()), .becomes(.authorized("kept")))
        #expect(try await capability.authorize().kind == .authorized)
        #expect(try await capability.status().kind == .notDetermined, ".returns remembers nothing")
        await #expect(throws: Broken.self) { try await capability.authorize() }
        #expect(try await capability.authorize().reason == "kept")
        #expect(try await capability.status().reason == "kept", ".becomes is remembered")
        #expect(try await capability.authorize().reason == "kept", "no answer left: the status as it is")
        #expect(capability.authorizationCount == 4)
        #expect(capability.mostConcurrentAuthorizations == 1)
    }

    @Test("statusUpdates() starts with the status and reports each change")
    func updates() async {
        let capability = ScriptedCapability(name: "c", status: .denied("no"))
        var updates = capability.statusUpdates().makeAsyncIterator()
        #expect(await updates.next()?.kind == .denied)
        capability.setStatus(.authorized("yes"))
        #expect(await updates.next()?.kind == .authorized)
    }
}
