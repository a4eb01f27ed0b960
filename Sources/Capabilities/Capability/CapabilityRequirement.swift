import Plumbing

/// Decides whether a status meets a need, such as "read and write" or "member of wheel".
public protocol CapabilityRequirement: Sendable, CustomStringConvertible {
    /// Whether `status` is good enough.
    func isMet(by status: CapabilityStatus) -> Bool
}

/// The common requirement: the status is authorized and grants at least the listed things.
///
/// With no grants listed, any authorized status meets it.
///
/// ```swift
/// let needsWrite = GrantRequirement.grants("write")
/// print(needsWrite.isMet(by: .authorized("token", grants: ["read", "write"])))  // true
/// ```
public struct GrantRequirement: CapabilityRequirement, Hashable {
    /// What an authorized status must grant.
    public var grants: Set<String>

    /// Creates a requirement for `grants`.
    public init(grants: Set<String> = []) {
        self.grants = grants
    }

    /// Any authorized status.
    public static var authorized: GrantRequirement { GrantRequirement() }

    /// An authorized status granting all of `grants`.
    public static func grants(_ grants: String...) -> GrantRequirement {
        GrantRequirement(grants: Set(grants))
    }

    public func isMet(by status: CapabilityStatus) -> Bool {
        isMet(kind: status.kind, grants: status.grants)
    }

    /// The rule itself, for a status read in place (a kept authorization under its lock).
    func isMet(kind: CapabilityStatus.Kind, grants granted: Set<String>) -> Bool {
        kind == .authorized && (grants.isEmpty || grants.isSubset(of: granted))
    }

    public var description: String {
        guard !grants.isEmpty else { return "authorized" }
        // Not `joined(separator:)`: a gate's label is made at every start (see `joinedByAppending`).
        return "authorized for " + grants.sorted().joinedByAppending(separator: " and ")
    }
}
