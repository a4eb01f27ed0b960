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

    /// A file the reader must refuse, and the words of its reason.
    private func expectRefused(_ path: String, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try TrustedFile.bytes(of: path)
            Issue.record("\(path) was read", sourceLocation: sourceLocation)
        } catch {
            #expect(error.reason.contains(words), "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == path, sourceLocation: sourceLocation)
        }
    }

    @Test(
        "who may change it: root or this user only, the file and every directory above it",
        .enabled(if: geteuid() == 0, "files of other owners need root to make"))
    func writers() throws {
        let directory = try TemporaryDirectory(prefix: "trusted")
        let good = try directory.write("ok", to: "good.yaml")
        #expect(try TrustedFile.bytes(of: good) == Array("ok".utf8))
        expectRefused(try directory.write("x", to: "group.yaml", mode: 0o664), "group")
        let owned = try directory.write("x", to: "owned.yaml")
        chown(owned, 65534, 65534)
        expectRefused(owned, "owned by")
        // A directory above it that others may write: they could replace the file.
        let open = try directory.directory("open")
        chmod(open, 0o777)
        expectRefused(try directory.write("x", to: "open/inside.yaml"), "open")
        let otherDirectory = try directory.directory("theirs")
        chown(otherDirectory, 65534, 65534)
        expectRefused(try directory.write("x", to: "theirs/inside.yaml"), "theirs")
    }

    @Test(
        "a sticky directory on the way is fine when the entry below it is root's; the file's own directory never",
        .enabled(if: geteuid() == 0, "files of other owners need root to make"))
    func stickyDirectories() throws {
        let directory = try TemporaryDirectory(prefix: "trusted")
        let sticky = try directory.directory("sticky")
        chmod(sticky, 0o1777)
        _ = try directory.directory("sticky/root-owned")
        #expect(throws: Never.self) {
            try TrustedFile.bytes(of: try directory.write("x", to: "sticky/root-owned/a.yaml"))
        }
        // Directly in the sticky directory: another user may not rename it, but may add files beside it.
        expectRefused(try directory.write("x", to: "sticky/direct.yaml"), "sticky")
        let theirs = try directory.directory("sticky/theirs")
        chown(theirs, 65534, 65534)
        chmod(theirs, 0o755)
        expectRefused(try directory.write("x", to: "sticky/theirs/a.yaml"), "theirs")
    }

    @Test(
        "links are followed and judged along the way; what is not a regular file is refused, never skipped",
        .enabled(if: geteuid() == 0, "files of other owners need root to make"))
    func linksAndKinds() throws {
        let directory = try TemporaryDirectory(prefix: "trusted")
        let target = try directory.write("linked", to: "target.yaml")
        symlink(target, directory.path + "/link.yaml")
        #expect(try TrustedFile.bytes(of: directory.path + "/link.yaml") == Array("linked".utf8))
        // A link through a directory others may write.
        let open = try directory.directory("open")
        chmod(open, 0o777)
        let hidden = try directory.write("x", to: "open/hidden.yaml")
        symlink(hidden, directory.path + "/via-open.yaml")
        expectRefused(directory.path + "/via-open.yaml", "open")
        // A dangling link is no missing file (an optional file's absence is no reason to skip it):
        // refused, as a FIFO and a directory are.
        symlink(directory.path + "/nowhere", directory.path + "/dangling.yaml")
        expectRefused(directory.path + "/dangling.yaml", "which does not exist")
        mkfifo(directory.path + "/fifo.yaml", 0o644)
        expectRefused(directory.path + "/fifo.yaml", "refusing a FIFO")
        expectRefused(try directory.directory("dir.yaml"), "refusing a directory")
        #expect(!TrustedFile.exists(directory.path + "/absent.yaml"))
    }

    @Test(
        "a POSIX ACL that lets anyone else write is refused; a file past the size limit is refused unread",
        .enabled(if: geteuid() == 0, "files of other owners need root to make"))
    func aclAndSize() throws {
        let directory = try TemporaryDirectory(prefix: "trusted")
        let shared = try directory.write("x", to: "acl.yaml")
        let setfacl = try runProcess("/usr/bin/setfacl", ["-m", "u:65534:rw", shared])
        if setfacl.status == 0 {
            expectRefused(shared, "ACL")
        } else {
            // The file system has no ACLs: nothing to grant, nothing to refuse.
            #expect(setfacl.standardError.contains("Operation not supported"), "\(setfacl.standardError)")
        }
        let large = directory.path + "/large.yaml"
        let descriptor = open(large, O_WRONLY | O_CREAT, 0o644)
        ftruncate(descriptor, off_t(TrustedFile.sizeLimit + 1))
        _ = Glibc.close(descriptor)
        expectRefused(large, "the limit is")
    }
}
