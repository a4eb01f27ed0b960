import FeatureFlags
import Locking
import ServiceContextModule
import Testing

/// Transaction context propagation (OpenFeature 3.3) through swift-service-context, the context
/// Swift's server libraries pass along: what the flags' context shares with them, both ways.
@Suite("ServiceContext transaction context propagator")
struct ServiceContextPropagatorTests {
    @Test("3.3.1: a transaction's context reaches evaluations in it, in child tasks, and nowhere after")
    func transaction() async {
        let api = OpenFeatureAPI()
        let provider = OpenFeatureSpecificationTests.ScriptedProvider()
        await api.setProvider(provider)
        api.setTransactionContextPropagator(ServiceContextTransactionContextPropagator())
        let client = api.client()
        await api.withTransactionContext(FlagEvaluationContext(targetingKey: "user-7")) {
            #expect(ServiceContext.current?.flagEvaluationContext?.targetingKey == "user-7")
            await Task { _ = client.boolean("f", default: false) }.value
        }
        #expect(provider.received.withLock { $0 }?.targetingKey == "user-7")
        #expect(ServiceContext.current?.flagEvaluationContext == nil)
        _ = client.boolean("f", default: false)
        #expect(provider.received.withLock { $0 }?.targetingKey == nil)
    }

    @Test("a ServiceContext restored by another library brings the flags' context; its other values are kept")
    func sharedWithOtherLibraries() async {
        let api = OpenFeatureAPI()
        let provider = OpenFeatureSpecificationTests.ScriptedProvider()
        await api.setProvider(provider)
        let propagator = ServiceContextTransactionContextPropagator()
        api.setTransactionContextPropagator(propagator)
        // What a framework does: keep the request's ServiceContext, and restore it for later work.
        var request = ServiceContext.topLevel
        request[RequestIDKey.self] = "r-1"
        let captured: ServiceContext? = ServiceContext.withValue(request) {
            api.withTransactionContext(FlagEvaluationContext(attributes: ["tier": "gold"])) {
                ServiceContext.current
            }
        }
        #expect(captured?[RequestIDKey.self] == "r-1", "the context the transaction started in is kept")
        ServiceContext.withValue(captured!) {
            #expect(propagator.currentContext()?.attributes["tier"] == "gold")
            _ = api.client().boolean("f", default: false)
        }
        #expect(provider.received.withLock { $0 }?.attributes["tier"] == "gold")
        // The synchronous form too.
        propagator.withContext(FlagEvaluationContext(targetingKey: "sync")) {
            #expect(api.transactionContext?.targetingKey == "sync")
        }
    }

    private enum RequestIDKey: ServiceContextKey {
        typealias Value = String
    }
}
