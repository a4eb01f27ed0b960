import Foundation
import Plumbing
import Testing

@Suite
struct SHA256Tests {
    @Test(
        "the digests of FIPS 180-4's examples",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                String(repeating: "a", count: 1_000_000),
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            ),
        ])
    func examples(text: String, digest: String) {
        var hash = SHA256()
        hash.update(text.utf8)
        #expect(hash.finalHex() == digest)
    }

    @Test("agrees with coreutils' sha256sum on every length around the block and padding edges")
    func againstSha256sum() throws {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID())")
            try Data(bytes).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            process.arguments = [file.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            var hash = SHA256()
            // In two parts: state carried across updates.
            hash.update(bytes.prefix(length / 3))
            hash.update(bytes.dropFirst(length / 3))
            #expect(text.hasPrefix(hash.finalHex() + " "), "length \(length)")
        }
    }
}
