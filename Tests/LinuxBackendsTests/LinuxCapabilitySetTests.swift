import CLinuxSupport
import Foundation
import Glibc
import Testing

@testable import LinuxBackends

@Suite struct LinuxCapabilitySetTests {
    @Test("CapEff is parsed from the status text, by name and number")
    func parsesStatus() throws {
        let text = "Name:\tcapctl\nCapInh:\t0000000000000000\nCapEff:\t0000000000000c00\nCapBnd:\t000001ffffffffff\n"
        let set = try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: text)
        #expect(set.capabilityNames == ["CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST"])
        #expect(set.contains(LinuxCapabilitySet.number(of: "net_bind_service")!))
        #expect(!set.contains(LinuxCapabilitySet.number(of: "CAP_SYS_ADMIN")!))
        #expect(LinuxCapabilitySet.number(of: "CAP_NOT_A_THING") == nil)
    }

    @Test("a missing or malformed field is an error, never an empty or full set")
    func malformed() {
        #expect(throws: LinuxCapabilitySet.ReadError.missingField("CapEff")) {
            try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "Name:\tx\n")
        }
        #expect(throws: LinuxCapabilitySet.ReadError.malformed(field: "CapEff", value: "zz")) {
            try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "CapEff:\tzz\n")
        }
    }

    @Test(
        "lines are read as the kernel writes them: the last without a newline, blanks at both ends, another field's prefix"
    )
    func lineEdges() throws {
        #expect(
            try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "Name:\tx\nCapEff:\t0000000000000400").mask
                == 0x400)
        #expect(try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "CapEff: \t 1f \t\n").mask == 0x1f)
        #expect(try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "CapEffX:\t1\nCapEff:\t2\n").mask == 2)
        #expect(throws: LinuxCapabilitySet.ReadError.missingField("CapEff")) {
            try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "XCapEff:\t1\n\n")
        }
        #expect(throws: LinuxCapabilitySet.ReadError.malformed(field: "CapEff", value: "")) {
            try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "CapEff:\t \nCapBnd:\t1\n")
        }
        #expect(throws: LinuxCapabilitySet.ReadError.malformed(field: "CapEff", value: "1é")) {
            try LinuxCapabilitySet.parse(field: "CapEff", fromStatus: "CapEff:\t1é\n")
        }
    }

    /// What a thread learned, read after it is joined.
    private final class ThreadAnswers: @unchecked Sendable {
        var ownSet: UInt64?
        var processSet: LinuxCapabilitySet?
    }

    // Only with capabilities to drop: with none, the thread's set and the process's are both empty.
    @Test(
        "the effective set is the process's, as /proc/self/status says, not the asking thread's",
        .enabled(if: ((try? LinuxCapabilitySet.effective())?.mask ?? 0) != 0))
    func effectiveSetOfTheProcess() throws {
        let process = try LinuxCapabilitySet.effective()
        #expect(try LinuxCapabilitySet.effectiveFromStatusFile() == process)
        // A thread that empties its own effective set still answers for the process.
        let answers = ThreadAnswers()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                let answers = Unmanaged<ThreadAnswers>.fromOpaque(context!).takeRetainedValue()
                var own: UInt64 = 0
                guard clinux_clear_thread_effective_capabilities() == 0,
                    clinux_thread_effective_capabilities(&own) == 0
                else { return nil }
                answers.ownSet = own
                answers.processSet = try? LinuxCapabilitySet.effective()
                return nil
            }, Unmanaged.passRetained(answers).toOpaque())
        try #require(started == 0)
        pthread_join(thread, nil)
        #expect(answers.ownSet == 0)
        #expect(answers.processSet == process)
    }

    @Test("the effective set read from the kernel matches /proc/self/status for this process")
    func effectiveMatchesKernel() throws {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = text.split(separator: "\n").first { $0.hasPrefix("CapEff:") }!
        let expected = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)!
        #expect(try LinuxCapabilitySet.effective().mask == expected)
    }
}
