import Foundation

/// The few calls of the sqlite3 library the workflow needs, loaded at run time (as libpam is in
/// this package), so building needs no SQLite package.
public final class SQLiteDatabase {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private typealias Open = @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>) -> Int32
    private typealias Close = @convention(c) (OpaquePointer?) -> Int32
    private typealias Exec =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>,
            (
                @convention(c) (
                    UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                    UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
                ) -> Int32
            )?,
            UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32
    private typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?

    private static func symbol<T>(_ name: String, as type: T.Type) throws(Failure) -> T {
        guard let library = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL) else {
            throw Failure(description: "cannot load libsqlite3.so.0: \(String(cString: dlerror()))")
        }
        guard let pointer = dlsym(library, name) else { throw Failure(description: "libsqlite3 has no \(name)") }
        return unsafeBitCast(pointer, to: type)
    }

    private let handle: OpaquePointer?
    private let close: Close
    private let exec: Exec
    private let message: ErrorMessage

    /// Opens (or creates) the database at `path`.
    public init(path: String) throws(Failure) {
        let open = try Self.symbol("sqlite3_open", as: Open.self)
        close = try Self.symbol("sqlite3_close", as: Close.self)
        exec = try Self.symbol("sqlite3_exec", as: Exec.self)
        message = try Self.symbol("sqlite3_errmsg", as: ErrorMessage.self)
        var handle: OpaquePointer?
        let code = open(path, &handle)
        self.handle = handle
        guard code == 0 else { throw Failure(description: "cannot open \(path): SQLite error \(code)") }
    }

    deinit { _ = close(handle) }

    /// Runs `sql` and returns the first column of every row.
    @discardableResult
    public func rows(_ sql: String) throws(Failure) -> [String] {
        final class Collected { var rows: [String] = [] }
        let collected = Collected()
        let code = exec(
            handle, sql,
            { context, count, values, _ in
                let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                if count > 0, let value = values?[0] { collected.rows.append(String(cString: value)) }
                return 0
            }, Unmanaged.passUnretained(collected).toOpaque(), nil)
        guard code == 0 else {
            throw Failure(description: "SQLite error \(code): \(message(handle).map { String(cString: $0) } ?? "")")
        }
        return collected.rows
    }

    /// `PRAGMA integrity_check`: nil when the database is sound, else what SQLite found.
    public func integrityProblem() -> String? {
        do {
            let answer = try rows("PRAGMA integrity_check")
            return answer == ["ok"] ? nil : answer.joined(separator: "; ")
        } catch {
            return error.description
        }
    }
}
