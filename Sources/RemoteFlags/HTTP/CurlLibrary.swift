import CCurl
import Glibc
import Plumbing

/// The system's libcurl, loaded once per process at run time with dlopen (as libpam and libsystemd
/// are): the package builds without it, TLS and the certificate store are Debian's and get Debian's
/// security updates, and a process that names no flag service never loads it.
final class CurlLibrary: @unchecked Sendable {
    // The function pointers never change after loading; the library is never closed.
    let easyInit: ccurl_easy_init_function
    let easyCleanup: ccurl_easy_cleanup_function
    let easyPerform: ccurl_easy_perform_function
    let easySetopt: ccurl_easy_setopt_function
    let easyGetinfo: ccurl_easy_getinfo_function
    let easyStrerror: ccurl_easy_strerror_function
    let slistAppend: ccurl_slist_append_function
    let slistFreeAll: ccurl_slist_free_all_function

    /// libcurl's soname on Debian (the OpenSSL flavour, package libcurl4).
    static let soname = "libcurl.so.4"

    /// The library, or why it cannot be had; loaded and initialized on first use.
    static let shared: Result<CurlLibrary, HTTPTransferError> = open(soname)

    private init(
        easyInit: ccurl_easy_init_function, easyCleanup: ccurl_easy_cleanup_function,
        easyPerform: ccurl_easy_perform_function, easySetopt: ccurl_easy_setopt_function,
        easyGetinfo: ccurl_easy_getinfo_function, easyStrerror: ccurl_easy_strerror_function,
        slistAppend: ccurl_slist_append_function, slistFreeAll: ccurl_slist_free_all_function
    ) {
        self.easyInit = easyInit
        self.easyCleanup = easyCleanup
        self.easyPerform = easyPerform
        self.easySetopt = easySetopt
        self.easyGetinfo = easyGetinfo
        self.easyStrerror = easyStrerror
        self.slistAppend = slistAppend
        self.slistFreeAll = slistFreeAll
    }

    /// libcurl's text for a result code.
    func describe(_ code: Int32) -> String {
        easyStrerror(code).map { String(cString: $0) } ?? "CURLcode \(code)"
    }

    private static func open(_ path: String) -> Result<CurlLibrary, HTTPTransferError> {
        let library: DynamicLibrary
        switch DynamicLibrary.open(path) {
        case .success(let opened): library = opened
        case .failure(let error): return .failure(.unavailable("\(error.description) (Debian's package libcurl4)"))
        }
        func symbol<T>(_ name: String, as type: T.Type) -> T? { library.symbol(name, as: type) }
        guard let globalInit = symbol("curl_global_init", as: ccurl_global_init_function.self),
            let easyInit = symbol("curl_easy_init", as: ccurl_easy_init_function.self),
            let easyCleanup = symbol("curl_easy_cleanup", as: ccurl_easy_cleanup_function.self),
            let easyPerform = symbol("curl_easy_perform", as: ccurl_easy_perform_function.self),
            let easySetopt = symbol("curl_easy_setopt", as: ccurl_easy_setopt_function.self),
            let easyGetinfo = symbol("curl_easy_getinfo", as: ccurl_easy_getinfo_function.self),
            let easyStrerror = symbol("curl_easy_strerror", as: ccurl_easy_strerror_function.self),
            let slistAppend = symbol("curl_slist_append", as: ccurl_slist_append_function.self),
            let slistFreeAll = symbol("curl_slist_free_all", as: ccurl_slist_free_all_function.self)
        else {
            return .failure(.unavailable("\(path) lacks a function of libcurl's easy interface"))
        }
        // Once, before any other thread uses it (a static let's initializer runs once).
        let status = globalInit(Int(CCURL_GLOBAL_DEFAULT))
        guard status == Int32(CCURLE_OK) else {
            return .failure(.unavailable("libcurl did not initialize (CURLcode \(status))"))
        }
        return .success(
            CurlLibrary(
                easyInit: easyInit, easyCleanup: easyCleanup, easyPerform: easyPerform, easySetopt: easySetopt,
                easyGetinfo: easyGetinfo, easyStrerror: easyStrerror, slistAppend: slistAppend,
                slistFreeAll: slistFreeAll))
    }
}
