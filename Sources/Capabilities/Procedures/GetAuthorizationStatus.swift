public import ProcedureCore

/// Reads a capability's current status without prompting. Its output is the status;
/// it never fails: an error while reading is reported as ``CapabilityStatus/Kind/unavailable``
/// with cause `error` (fail closed: undecided, never a pass).
///
/// ```swift
/// let check = GetAuthorizationStatus(dataDirectory)  // reads, never asks
/// queue.addProcedure(check)
/// print(try await check.value())
/// ```
// Sendable by hand, as `Procedure`: it adds only a Sendable `let`.
public final class GetAuthorizationStatus: AsyncProcedure<CapabilityStatus>, @unchecked Sendable {
    /// The capability read.
    public let capability: any CapabilityType

    /// Creates a procedure reading `capability`'s status.
    public init(_ capability: some CapabilityType) {
        self.capability = capability
        super.init(name: "GetAuthorizationStatus(\(capability.name))")
    }

    public override func run() async throws -> CapabilityStatus {
        await capability.resolveStatus()
    }
}
