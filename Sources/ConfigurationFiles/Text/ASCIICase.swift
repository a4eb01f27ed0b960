extension StringProtocol {
    /// The text with only ASCII letters upper-cased. Names from configuration (capabilities,
    /// PAM keywords, file extensions) compare this way, as C's `strcasecmp` does: full Unicode
    /// case mapping would take `cap_ſys_admin` (U+017F, long s) for `CAP_SYS_ADMIN`.
    package var asciiUppercased: String {
        String(
            decoding: utf8.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 32 : $0 }, as: UTF8.self)
    }

    /// The text with only ASCII letters lower-cased (see ``asciiUppercased``).
    package var asciiLowercased: String {
        String(
            decoding: utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
