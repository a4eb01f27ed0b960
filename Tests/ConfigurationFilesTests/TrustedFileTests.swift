import ConfigurationFiles
import Glibc
import TestSupport
import Testing

/// The trusted reader gives back everything it opens, whether it reads or refuses.
@Suite("Trusted files")
struct TrustedFileTests {
    @Test("a directory refused after it was opened leaves no descriptor open (100 refusals)")
    func refusedDirectoryIsClosed() throws {
        let directory = try TemporaryDirectory(prefix: "trusted")
        let open = try directory.directory("anyone-writes", mode: 0o777)
        chmod(open, 0o777)
        for _ in 0..<100 {
            #expect(throws: TrustedFile.Refusal.self) { try TrustedFile.entries(of: open) }
        }
        #expect(OpenDescriptors.count(referringTo: open) == 0)
    }

    @Test("a file refused after it was opened leaves no descriptor open (100 refusals)")
    func refusedFileIsClosed() throws {
        let directory = try TemporaryDirectory(prefix: "trusted")
        let file = try directory.write("x", to: "anyone-writes.yaml", mode: 0o666)
        chmod(file, 0o666)
        for _ in 0..<100 {
            #expect(throws: TrustedFile.Refusal.self) { try TrustedFile.bytes(of: file) }
            #expect(throws: TrustedFile.Refusal.self) { try TrustedFile.check(file: file) }
        }
        #expect(OpenDescriptors.count(referringTo: file) == 0)
    }
}
