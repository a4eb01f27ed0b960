import Plumbing
import Testing

/// The one broadcast of the signals and stores: every subscriber hears every event sent after it
/// subscribed, in order.
@Suite("Event broadcast")
struct EventBroadcastTests {
    @Test("each subscriber gets every later event, in order")
    func delivery() async {
        let broadcast = EventBroadcast<Int>()
        broadcast.send(0)  // before anyone subscribed: nobody hears it
        let first = broadcast.subscribe()
        let second = broadcast.subscribe()
        for number in 1...3 { broadcast.send(number) }
        #expect(await collect(3, from: first) == [1, 2, 3])
        #expect(await collect(3, from: second) == [1, 2, 3])
    }

    @Test("a subscriber that keeps only the newest event gets the last one sent")
    func newestOnly() async {
        let broadcast = EventBroadcast<Int>(buffering: .bufferingNewest(1))
        let stream = broadcast.subscribe()
        for number in 1...5 { broadcast.send(number) }
        #expect(await collect(1, from: stream) == [5])
    }

    @Test("a subscriber whose stream is released is let go; the others still hear")
    func releasedSubscriber() async {
        let broadcast = EventBroadcast<Int>()
        let staying = broadcast.subscribe()
        do {
            var leaving = broadcast.subscribe().makeAsyncIterator()
            #expect(broadcast.subscriberCount == 2)
            broadcast.send(1)
            #expect(await leaving.next() == 1)
        }  // the iterator and its stream are gone: that subscription ends
        #expect(broadcast.subscriberCount == 1)
        broadcast.send(2)
        #expect(await collect(2, from: staying) == [1, 2])
    }
}

private func collect(_ count: Int, from stream: AsyncStream<Int>) async -> [Int] {
    var events: [Int] = []
    for await event in stream.prefix(count) { events.append(event) }
    return events
}
