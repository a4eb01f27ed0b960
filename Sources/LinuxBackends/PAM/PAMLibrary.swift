import CPAM
import Glibc
import Locking
import Plumbing

/// libpam, loaded at run time with dlopen, as systemd loads its optional libraries: the
/// package builds and runs without it, and PAM capabilities are then unavailable with the reason.
final class PAMLibrary: @unchecked Sendable {
    // The handle and function pointers never change after loading; the library is never closed.
    let start: cpam_start_function
    let startInDirectory: cpam_start_confdir_function?
    let end: cpam_end_function
    let authenticate: cpam_flags_function
    let accountManagement: cpam_flags_function
    let setCredentials: cpam_flags_function
    let openSession: cpam_flags_function
    let closeSession: cpam_flags_function
    let describeError: cpam_strerror_function
    let getItem: cpam_get_item_function

    private static let loaded = Lock<[String: Result<PAMLibrary, PAMLoadError>]>([:])

    struct PAMLoadError: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// The library at `path` (a soname such as `libpam.so.0`, or a path), loaded once per process.
    static func load(_ path: String) -> Result<PAMLibrary, PAMLoadError> {
        loaded.withLock { cache in
            if let known = cache[path] { return known }
            let result = open(path)
            cache[path] = result
            return result
        }
    }

    private static func open(_ path: String) -> Result<PAMLibrary, PAMLoadError> {
        let library: DynamicLibrary
        switch DynamicLibrary.open(path) {
        case .success(let opened): library = opened
        case .failure(let error): return .failure(PAMLoadError(description: error.description))
        }
        func symbol<T>(_ name: String, as type: T.Type) -> T? { library.symbol(name, as: type) }
        guard let start = symbol("pam_start", as: cpam_start_function.self),
            let end = symbol("pam_end", as: cpam_end_function.self),
            let authenticate = symbol("pam_authenticate", as: cpam_flags_function.self),
            let account = symbol("pam_acct_mgmt", as: cpam_flags_function.self),
            let setCredentials = symbol("pam_setcred", as: cpam_flags_function.self),
            let openSession = symbol("pam_open_session", as: cpam_flags_function.self),
            let closeSession = symbol("pam_close_session", as: cpam_flags_function.self),
            let describeError = symbol("pam_strerror", as: cpam_strerror_function.self),
            let getItem = symbol("pam_get_item", as: cpam_get_item_function.self)
        else {
            return .failure(PAMLoadError(description: "\(path) lacks a PAM function (is it Linux-PAM?)"))
        }
        return .success(
            PAMLibrary(
                start: start, startInDirectory: symbol("pam_start_confdir", as: cpam_start_confdir_function.self),
                end: end, authenticate: authenticate, accountManagement: account, setCredentials: setCredentials,
                openSession: openSession, closeSession: closeSession, describeError: describeError, getItem: getItem))
    }

    private init(
        start: cpam_start_function, startInDirectory: cpam_start_confdir_function?, end: cpam_end_function,
        authenticate: cpam_flags_function, accountManagement: cpam_flags_function, setCredentials: cpam_flags_function,
        openSession: cpam_flags_function, closeSession: cpam_flags_function, describeError: cpam_strerror_function,
        getItem: cpam_get_item_function
    ) {
        self.start = start
        self.startInDirectory = startInDirectory
        self.end = end
        self.authenticate = authenticate
        self.accountManagement = accountManagement
        self.setCredentials = setCredentials
        self.openSession = openSession
        self.closeSession = closeSession
        self.describeError = describeError
        self.getItem = getItem
    }
}
