package import ConfigurationFiles
import Glibc
import SystemPackage

/// The last good document of a remote flag source, kept on disk so a host starts (and a command
/// answers) without the network: written atomically (a temporary file in the same directory,
/// flushed, then renamed over the old one), only by root into a directory only root can write,
/// and read back through the trusted reader, as any flag file.
///
/// The file is a JSON object: the URL it came from, its entity tag, when it was last known good
/// (Unix time), its format, and the document as served. Written by the process that follows the
/// source (`HTTPFlagSource`), or, where that is capctl's unprivileged helper, by capctl from what
/// the helper reports: the helper itself can no longer write as root.
package struct LastGoodCopy: Sendable {
    package var url: String
    package var entityTag: String?
    package var fetched: Double
    package var format: FlagFileFormat
    package var document: String

    package init(url: String, entityTag: String?, fetched: Double, format: FlagFileFormat, document: String) {
        (self.url, self.entityTag, self.fetched, self.format, self.document) = (
            url, entityTag, fetched, format, document
        )
    }

    /// The copy at `path` if it is there, trusted, well formed and for `url`.
    package static func read(_ path: String, url: String) -> Result<LastGoodCopy, ConfigurationError>? {
        guard TrustedFile.exists(path) else { return nil }
        let members: [String: FlagValue]
        do throws(ConfigurationError) {
            guard
                case .structure(let object) = try JSONDocumentReader.read(try ConfigurationFile.text(path), file: path)
                    .value
            else { return .failure(ConfigurationError("not a last good copy of a flag source", file: path)) }
            members = object
        } catch {
            return .failure(error)
        }
        guard case .string(let copiedURL) = members["url"], let fetched = members["fetched"]?.numberValue,
            fetched.isFinite, case .string(let formatName) = members["format"],
            case .string(let document) = members["document"]
        else {
            return .failure(ConfigurationError("not a last good copy of a flag source", file: path))
        }
        guard copiedURL == url else { return nil }
        guard let format = FlagFileFormat(rawValue: formatName) else {
            return .failure(ConfigurationError("not a last good copy of a flag source", file: path))
        }
        return .success(
            LastGoodCopy(
                url: url, entityTag: members["etag"]?.stringValue, fetched: fetched, format: format, document: document)
        )
    }

    /// Writes the copy to `path` when this process is root, creating its directory (mode 0755).
    /// - Returns: why it was not written, or nil.
    package func write(to path: String) -> String? {
        guard geteuid() == 0 else { return "not root: the last good copy is written only by root" }
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if let problem = Self.makeDirectories(directory) { return problem }
        var members: [String: FlagValue] = [
            "url": .string(url), "fetched": .number(fetched), "format": .string(format.rawValue),
            "document": .string(document),
        ]
        members["etag"] = entityTag.map(FlagValue.string)
        let bytes = Array(FlagValue.structure(members).description.utf8)
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
                _ = try bytes.withUnsafeBytes { try descriptor.writeAll($0) }
                guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
            guard rename(temporary, path) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            unlink(temporary)
            return "cannot write \(path): \(error)"
        }
        // The rename is durable once the directory is flushed too; a failure here loses nothing.
        if let directory = try? FileDescriptor.open(
            directory.isEmpty ? "/" : directory, .readOnly, options: [.directory, .closeOnExec])
        {
            _ = try? directory.closeAfter { fsync(directory.rawValue) }
        }
        return nil
    }

    /// Creates `directory` and its missing parents, mode 0755: why not, or nil.
    private static func makeDirectories(_ directory: String) -> String? {
        var path = ""
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o755) != 0, errno != EEXIST {
                return "cannot create \(path): \(String(cString: strerror(errno)))"
            }
        }
        return nil
    }
}
