import Capabilities
import CapabilityTesting
import TestSupport
import Testing

/// Semantics rule 25: status changes as an async sequence.
@Suite("Status updates", .timeLimit(.minutes(2)))
struct StatusUpdatesTests {
    @Test("the first element is the current status, then each change once")
    func changes() async {
        let network = ScriptedCapability(name: "network", status: .authorized("link up"))
        var updates = network.statusUpdates().makeAsyncIterator()
        #expect(await updates.next() == .authorized("link up"))
        network.setStatus(.authorized("link up"))
        network.setStatus(.denied("link down"))
        #expect(await updates.next() == .denied("link down"))
        network.setStatus(.authorized("link up again"))
        #expect(await updates.next() == .authorized("link up again"))
    }

    @Test("an error while reading is reported as unavailable")
    func errorIsDenial() async throws {
        let network = ScriptedCapability(name: "network", status: .authorized("up"))
        var updates = network.statusUpdates().makeAsyncIterator()
        _ = await updates.next()
        network.failStatusReads(with: TestError("netlink socket closed"))
        let status = try #require(await updates.next())
        #expect(status.kind == .unavailable)
        #expect(status.reason.contains("netlink socket closed"))
    }

    @Test("each subscriber gets its own sequence")
    func independentSubscribers() async {
        let flag = ScriptedCapability(name: "flag", status: .denied("off"))
        var first = flag.statusUpdates().makeAsyncIterator()
        var second = flag.statusUpdates().makeAsyncIterator()
        #expect(await first.next() == .denied("off"))
        #expect(await second.next() == .denied("off"))
        flag.setStatus(.authorized("on"))
        #expect(await first.next() == .authorized("on"))
        #expect(await second.next() == .authorized("on"))
    }

    private struct Fixed: CapabilityType {
        let name = "fixed"
        func status() async throws -> CapabilityStatus { .authorized("always") }
    }

    @Test("a capability without its own change source is polled, starting with its status")
    func pollingDefault() async {
        var updates = Fixed().statusUpdates().makeAsyncIterator()
        #expect(await updates.next() == .authorized("always"))
    }
}
