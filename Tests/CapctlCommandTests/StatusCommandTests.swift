import Foundation
import Testing
@testable import CapctlCommand

@Suite struct StatusCommandTests {
    @Test("the table aligns columns under their headers")
    func table() {
        let text = StatusRenderer.table([
            StatusEntry(name: "user", kind: "user", status: "authorized", reason: "root"),
            StatusEntry(name: "process-capabilities", kind: "linux-capabilities", status: "denied", reason: "none"),
        ])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let reasonColumn = lines[0].range(of: "REASON")!.lowerBound.utf16Offset(in: lines[0])
        #expect(lines[1].dropFirst(reasonColumn) == "root")
        #expect(lines[2].dropFirst(reasonColumn) == "none")
    }

    @Test("--json output parses and has the documented shape")
    func json() throws {
        let text = StatusRenderer.json(capabilities: HostReport.current().entries)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let capabilities = object?["capabilities"] as? [[String: String]]
        #expect(capabilities?.map { $0["name"] } == ["user", "groups", "process-capabilities", "network", "pam:login"])
        #expect(capabilities?.allSatisfy { ["authorized", "denied", "notDetermined", "unavailable"].contains($0["status"] ?? "") } == true)
        #expect(capabilities?.allSatisfy { Set($0.keys) == ["name", "kind", "status", "reason"] } == true)
        #expect(object?["flags"] is [Any] && object?["gates"] is [Any])
    }

    @Test("strings are escaped for JSON")
    func escaping() {
        #expect(StatusRenderer.quote("a\"b\\c\n\u{1}") == #""a\"b\\c\n\u0001""#)
    }
}
