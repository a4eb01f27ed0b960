import Locking

/// Code that runs around every evaluation, as OpenFeature's hooks do: to add context, log,
/// measure or validate. Every method has a default that does nothing.
///
/// Order: `before` hooks run API, client, call, provider; `after`, `error` and `finally`
/// run in the reverse order. A `before` hook may return context, merged over the evaluation
/// context for the hooks after it and the provider. A `before` or `after` hook that throws
/// stops the remaining hooks of that stage; the evaluation then returns the caller's default
/// with `GENERAL`, and the `error` hooks run. `error` and `finally` hooks cannot fail the evaluation.
public protocol FlagHook: Sendable {
    /// Before the provider is asked; the returned context is merged over the current one.
    func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext?
    /// After a successful evaluation.
    func after(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) throws
    /// After a failed one: the provider returned an error code, or a hook threw.
    func error(_ context: HookContext, error: any Error, hints: HookHints)
    /// After every evaluation, with what the caller receives.
    func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints)
}

extension FlagHook {
    public func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext? { nil }
    public func after(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) throws {}
    public func error(_ context: HookContext, error: any Error, hints: HookHints) {}
    public func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) {}
}

/// The type an evaluation asks for.
public enum FlagValueKind: String, Sendable, Hashable {
    /// `true` or `false`.
    case boolean
    /// A string.
    case string
    /// A whole number.
    case integer
    /// A floating-point number.
    case double
    /// A structure: a JSON object or list (OpenFeature's "object" or "structure").
    case object
}

/// What a hook knows about the evaluation it runs around. The flag key, type, default value and
/// the client's and provider's metadata cannot be changed (4.1.3, 4.2.2.2, 4.2.2.3); a `before`
/// hook changes the evaluation context by returning context to merge, never by assignment (4.1.4.1).
public struct HookContext: Sendable {
    /// The flag evaluated.
    public let flagKey: String
    /// The type asked for.
    public let kind: FlagValueKind
    /// The caller's default.
    public let defaultValue: FlagValue
    /// The merged evaluation context, including what earlier `before` hooks added.
    public internal(set) var evaluationContext: FlagEvaluationContext
    /// The client's domain, when it has one.
    public let clientDomain: String?
    /// The provider asked.
    public let providerMetadata: ProviderMetadata
    /// This hook's data for this evaluation: what its `before` stage stores, its `after`, `error`
    /// and `finally` stages read (a start time, a span). Each hook has its own, made fresh for
    /// every evaluation and shared by no other hook.
    public internal(set) var hookData = HookData()
}

/// A hook's own values for one evaluation, carried from one of its stages to the next
/// (OpenFeature's hook data, 4.6.1): any `Sendable` value under a string key (a Boolean, a string,
/// a number, an instant, a structure, or an object such as a tracing span), read back by type.
///
/// ```swift
/// struct Timing: FlagHook {
///     func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext? {
///         context.hookData["started"] = ContinuousClock.now
///         return nil
///     }
///     func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) {
///         guard let started = context.hookData["started", as: ContinuousClock.Instant.self] else { return }
///         print("\(context.flagKey) took \(ContinuousClock.now - started)")
///     }
/// }
/// ```
public final class HookData: Sendable {
    private let values = Lock<[String: any Sendable]>([:])

    /// Empty data.
    public init() {}

    /// The value stored under `key`, of whatever type it was stored as, or nil; storing nil removes it.
    public subscript(key: String) -> (any Sendable)? {
        get { values.withLock { $0[key] } }
        set { values.withLock { $0[key] = newValue } }
    }

    /// The value stored under `key` when it is a `Value`; nil when there is none or it is of
    /// another type (a cast, not a conversion: an `Int` stored is not a `Double` read).
    public subscript<Value: Sendable>(key: String, as type: Value.Type) -> Value? {
        values.withLock { $0[key] } as? Value
    }

    /// Every value stored, by key.
    public var all: [String: any Sendable] { values.withLock { $0 } }
}

/// Values a caller passes to the hooks of one evaluation.
public typealias HookHints = [String: FlagValue]

/// Options for one evaluation: hooks that run for it alone, and hints for every hook.
///
/// ```swift
/// let options = FlagEvaluationOptions(hints: ["request": .string("export")])
/// let enabled = api.client().boolean("new-export", default: false, options: options)
/// ```
public struct FlagEvaluationOptions: Sendable {
    /// Hooks for this evaluation, after the API's and the client's.
    public var hooks: [any FlagHook]
    /// Passed to every hook.
    public var hints: HookHints

    /// Creates options.
    public init(hooks: [any FlagHook] = [], hints: HookHints = [:]) {
        self.hooks = hooks
        self.hints = hints
    }
}

/// The error a `before` or `after` hook threw, as error hooks and the details see it.
struct HookFailure: Error, CustomStringConvertible {
    let stage: String
    let underlying: any Error
    var description: String { "\(stage) hook failed: \(underlying)" }
}

/// A provider's error code, as error hooks see it.
public struct FlagEvaluationError: Error, Sendable, CustomStringConvertible {
    /// The code the provider returned.
    public var code: FlagErrorCode
    /// The provider's message.
    public var message: String?

    public var description: String { code.rawValue + (message.map { ": \($0)" } ?? "") }
}
