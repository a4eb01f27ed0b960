import DecisionService
import Testing

/// What holds a serving thread (a login being answered, a watch open) is bounded per user and in
/// all, so many users together cannot take every thread capctld serves calls on.
@Suite
struct PerUserCountsTests {
    @Test("a user past its own bound is refused as that user; anyone past the bound of all, as everyone")
    func bounds() {
        let counts = PerUserCounts()
        #expect(counts.begin(uid: 1, limit: 2, total: 3) == .begun)
        #expect(counts.begin(uid: 1, limit: 2, total: 3) == .begun)
        #expect(counts.begin(uid: 1, limit: 2, total: 3) == .userAtLimit)
        #expect(counts.begin(uid: 2, limit: 2, total: 3) == .begun)
        // Three held in all: uid 3, within its own bound, meets the bound of all.
        #expect(counts.begin(uid: 3, limit: 2, total: 3) == .allAtLimit)
        counts.end(uid: 1)
        #expect(counts.begin(uid: 3, limit: 2, total: 3) == .begun)
        // Ending what a user does not hold frees nothing of anyone else's.
        counts.end(uid: 4)
        #expect(counts.begin(uid: 5, limit: 2, total: 3) == .allAtLimit)
    }

    @Test("capctld's bounds leave a quarter of its serving threads to every other call")
    func capctldBounds() {
        #expect(DecisionService.watches + DecisionService.conversations <= DecisionService.servingThreads * 3 / 4)
    }
}
