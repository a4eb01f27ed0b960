import DownloadWorkflowKit
import ProcedureCore
import Testing

/// The example's progress bar: how a progress reads, and when it is redrawn.
@Suite
struct TerminalProgressBarTests {
    @Test("a known total draws a bar, the percent, the bytes and the detail")
    func knownTotal() {
        var bar = TerminalProgressBar(width: 10)
        let line = bar.line(for: ProcedureProgress(completed: 65_536, of: 131_072, detail: "db.sqlite.gz"))
        #expect(line == "\r[#####-----]  50%  64.0 KiB of 128.0 KiB  db.sqlite.gz\u{1B}[K")
    }

    @Test("it redraws when the percent or the detail changes, not for every chunk")
    func redraws() {
        var bar = TerminalProgressBar(width: 4)
        #expect(bar.line(for: .notStarted) == nil, "nothing reported yet draws nothing")
        #expect(bar.line(for: ProcedureProgress(completed: 100, of: 1000)) != nil)
        #expect(bar.line(for: ProcedureProgress(completed: 105, of: 1000)) == nil, "still 10%")
        #expect(bar.line(for: ProcedureProgress(completed: 105, of: 1000, detail: "retrying")) != nil)
        #expect(bar.line(for: ProcedureProgress(completed: 1000, of: 1000, detail: "retrying")) != nil)
    }

    @Test("an unknown total shows the bytes so far")
    func unknownTotal() {
        var bar = TerminalProgressBar()
        #expect(bar.line(for: ProcedureProgress(completed: 3 << 20, of: nil)) == "\r3.0 MiB\u{1B}[K")
    }

    @Test(
        "byte counts read in binary units",
        arguments: [
            (Int64(0), "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), (5 << 30, "5.0 GiB"),
            (.max, "8.0 EiB"),
        ])
    func bytes(count: Int64, text: String) {
        #expect(TerminalProgressBar.bytes(count) == text)
    }
}
