public import FeatureFlags

/// Creates an OpenFeature API instance of its own (OpenFeature 1.8): its providers, global
/// context, hooks, transaction propagator, logger and events are apart from
/// `OpenFeatureAPI.shared`'s and from every other instance's.
///
/// Most programs want `OpenFeatureAPI.shared`, the one every part of a process
/// sees. An isolated instance is for what must not share it: a test that sets providers of its
/// own, a plug-in or a tenant given its own flags, a dependency container that builds the API.
/// The factory lives in this module, apart from the singleton, so that choosing it is deliberate
/// (1.8.3): its import says so. One provider instance is registered with one API instance at a
/// time (1.8.4); give each instance providers of its own.
///
/// ```swift
/// import OpenFeatureIsolation
///
/// let api = makeIsolatedOpenFeatureAPI()
/// await api.setProvider(InMemoryFlagProvider(["new-export": true]))
/// let enabled = api.client().boolean("new-export", default: false)
/// ```
public func makeIsolatedOpenFeatureAPI() -> OpenFeatureAPI {
    OpenFeatureAPI()
}
