/// A capability that can answer its question for another subject than this process: whether
/// *the client* runs as a user, is in a group, may read a file, holds a Linux capability, is
/// authorized by polkit.
///
/// Conform when the backend can decide for a subject from what the kernel says of it; anything
/// this process would otherwise read of itself (its ids, its capabilities) must come from the
/// subject instead. Capabilities that do not conform are unavailable for a subject (undecided).
public protocol SubjectCapability: CapabilityType {
    /// The same capability asked about `subject`.
    func forSubject(_ subject: Subject) -> any CapabilityType
}

extension CapabilityType {
    /// This capability as it answers for `subject`: its own answer when it is a
    /// ``SubjectCapability``, otherwise one that is unavailable, saying why (a gate on it is
    /// undecided, never open).
    public func evaluated(for subject: Subject) -> any CapabilityType {
        if let capable = self as? any SubjectCapability { return capable.forSubject(subject) }
        return UnanswerableForSubject(name: name, subject: subject)
    }
}

/// A capability whose backend cannot answer for another subject.
struct UnanswerableForSubject: CapabilityType {
    let name: String
    let subject: Subject

    func status() async throws -> CapabilityStatus { currentStatus }

    func knownStatus() -> CapabilityStatus? { currentStatus }

    private var currentStatus: CapabilityStatus {
        .unavailable("\(name) cannot be decided for another subject (\(subject))", cause: .misconfigured)
    }
}
