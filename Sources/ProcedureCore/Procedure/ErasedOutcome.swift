/// A result procedure's outcome, kept without naming its output's type.
///
/// Code generic over an output type runs unspecialized when the caller is in another module (a
/// queue runs `execute()` through the vtable), and there every use of a type built from the output
/// (`Output?`, `Result<Output, any Error>`, a tuple, a struct holding one) asks the runtime's
/// metadata cache for that type: measured, about half of a batch's time per element. An existential
/// needs only the output's own metadata, which such code already has, so the outcome is stored as
/// one and read back with a cast to the type that stored it.
enum ErasedOutcome: Sendable {
    /// Not finished with an output or an error (yet).
    case none
    case success(any Sendable)
    case failure(any Error)

    var isNone: Bool {
        if case .none = self { true } else { false }
    }

    /// The typed result. `Output` must be the type the success was stored as.
    func typed<Output: Sendable>(as _: Output.Type) -> Result<Output, any Error>? {
        switch self {
        case .none: nil
        // Unconditional: only `ResultProcedure<Output>` stores an output, as its own type.
        case .success(let value): .success(value as! Output)
        case .failure(let error): .failure(error)
        }
    }
}
