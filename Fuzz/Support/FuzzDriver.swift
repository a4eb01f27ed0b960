import Glibc

/// What every fuzz target shares: libFuzzer calls `LLVMFuzzerTestOneInput` (built with
/// `--sanitize fuzzer -Xswiftc -DFUZZING`); built normally, the target replays the files and
/// directories named on its command line through the same function, so the committed corpus
/// is a regression test too.
public enum FuzzDriver {
    /// Runs `body` on every file named in `arguments` (directories: every file in them) and
    /// prints how many inputs it replayed, as `N passed, 0 failed` (a crash ends the process).
    public static func replay(_ arguments: [String], through body: ([UInt8]) -> Void) {
        var count = 0
        for path in arguments {
            for file in files(at: path) {
                body(contents(of: file))
                count += 1
            }
        }
        print("replayed: \(count) passed, 0 failed")
    }

    private static func files(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    private static func contents(of path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { return bytes }
            bytes += chunk[..<count]
        }
    }
}
