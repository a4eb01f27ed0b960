import ConfigurationFiles
import FeatureFlags
import Foundation
import Glibc
import SystemPackage

/// The last good document of a remote flag source, kept on disk so a host starts (and a command
/// answers) without the network: written atomically (a temporary file in the same directory,
/// flushed, then renamed over the old one), only by root into a directory only root can write,
/// and read back through the trusted reader, as any flag file.
///
/// The file is a JSON object: the URL it came from, its entity tag, when it was last known good
/// (Unix time), its format, and the document as served.
struct LastGoodCopy {
    var url: String
    var entityTag: String?
    var fetched: Double
    var format: FlagFileFormat
    var document: String

    /// The copy at `path` if it is there, trusted, well formed and for `url`.
    static func read(_ path: String, url: String) -> Result<LastGoodCopy, ConfigurationError>? {
        guard TrustedFile.exists(path) else { return nil }
        let text: String
        do throws(ConfigurationError) {
            text = try ConfigurationFile.text(path)
        } catch {
            return .failure(error)
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let copiedURL = object["url"] as? String, let fetched = object["fetched"] as? Double,
            fetched.isFinite, let formatName = object["format"] as? String, let document = object["document"] as? String
        else {
            return .failure(ConfigurationError("not a last good copy of a flag source", file: path))
        }
        guard copiedURL == url else { return nil }
        guard let format = FlagFileFormat(rawValue: formatName) else {
            return .failure(ConfigurationError("not a last good copy of a flag source", file: path))
        }
        return .success(
            LastGoodCopy(
                url: url, entityTag: object["etag"] as? String, fetched: fetched, format: format, document: document))
    }

    /// Writes the copy to `path` when this process is root, creating its directory (mode 0755).
    /// - Returns: why it was not written, or nil.
    func write(to path: String) -> String? {
        guard geteuid() == 0 else { return "not root: the last good copy is written only by root" }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            return "cannot create \(directory): \(error.localizedDescription)"
        }
        var object: [String: Any] = [
            "url": url, "fetched": fetched, "format": format.rawValue, "document": document,
        ]
        if let entityTag { object["etag"] = entityTag }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "cannot encode the copy"
        }
        let temporary = path + ".\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                temporary, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec, .noFollow],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            return "cannot create \(temporary): \(error)"
        }
        do {
            try descriptor.closeAfter {
                _ = try data.withUnsafeBytes { try descriptor.writeAll($0) }
                guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
            guard rename(temporary, path) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            unlink(temporary)
            return "cannot write \(path): \(error)"
        }
        // The rename is durable once the directory is flushed too; a failure here loses nothing.
        if let directory = try? FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec]) {
            _ = try? directory.closeAfter { fsync(directory.rawValue) }
        }
        return nil
    }
}
