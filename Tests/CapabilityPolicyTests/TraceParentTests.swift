import CapabilityPolicy
import Testing

/// W3C Trace Context, section 3.2 (traceparent), as its text states each rule.
@Suite("TraceParent: W3C traceparent as the recommendation reads it")
struct TraceParentTests {
    @Test("the recommendation's example reads back to its fields and writes back the same")
    func example() throws {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let parent = try #require(TraceParent(header))
        #expect(parent.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parent.parentID == "00f067aa0ba902b7")
        #expect(parent.flags == 1)
        #expect(parent.description == header)
        #expect(
            TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.description.hasSuffix("-00") == true
        )
    }

    @Test(
        "refused: upper case, all-zero ids, version ff, a wrong length, missing dashes, non-hex, version 00 with more",
        arguments: [
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "", "00",
        ])
    func refused(_ header: String) {
        #expect(TraceParent(header) == nil, "\(header)")
    }

    @Test("a later version is read by its first four fields, and only with a dash after them")
    func laterVersion() {
        #expect(
            TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-later")?.traceID
                == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") != nil)
        #expect(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x") == nil)
    }

    @Test("without a tracer bootstrapped there is no current trace to send")
    func noTracer() {
        #expect(TraceParent.current() == nil)
    }
}
