import Capabilities

extension PolicyEnvironment {
    /// The same kinds, for hermetic tests (`capctl test`) on a machine the policy is not for (a
    /// CI runner): what only a host can say of a capability (a group it lacks, a PAM module it
    /// has not installed) is told to `note` instead of failing the load, and such a capability
    /// stands in as unavailable. A test case gives every status its gate reads, so nothing of
    /// this host decides it. Errors of the file itself (an unknown key, a setting of the wrong
    /// type) are errors still. Never for deciding: `capctl validate` on the target host checks the rest.
    /// - Parameter note: Told each setting this host cannot check, once per capability built.
    public func hermetic(note: @escaping @Sendable (String) -> Void) -> PolicyEnvironment {
        var environment = self
        for kind in kinds { environment.register(HermeticKind(base: kind, note: note)) }
        return environment
    }
}

/// A kind whose host checks are notes: see ``PolicyEnvironment/hermetic(note:)``.
struct HermeticKind: CapabilityKind {
    let base: any CapabilityKind
    let note: @Sendable (String) -> Void

    var name: String { base.name }
    var summary: String { base.summary }
    var settings: [CapabilitySetting] { base.settings }
    var readsStatusLocally: Bool { base.readsStatusLocally }
    var readsFlags: Bool { base.readsFlags }
    var mayAsk: Bool { base.mayAsk }

    func validate(_ settings: CapabilitySettings) throws(CapabilityConfigurationError) {
        do throws(CapabilityConfigurationError) {
            try base.validate(settings)
        } catch {
            note("kind \(base.name): \(error.message)")
        }
    }

    func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        do throws(CapabilityConfigurationError) {
            return try base.makeCapability(settings, in: context)
        } catch {
            return AssumedCapability(
                name: "\(base.name) capability", status: .unavailable("cannot be built on this host: \(error.message)"))
        }
    }
}
