import CBuildInfo

/// What `capctl --version` prints, and what Scripts/build-deb names the package after.
enum BuildVersion {
    /// The release number; Scripts/build-deb reads it from the built binary, so it is kept here only.
    static let number = "0.25.0"
    /// The commit the build was made from: set by Scripts/build-deb, "unknown" in other builds.
    static var commit: String { String(cString: capctl_build_commit()) }
    /// `0.25.0 (commit 0123456789ab)`.
    static var description: String { "\(number) (commit \(commit))" }
}
