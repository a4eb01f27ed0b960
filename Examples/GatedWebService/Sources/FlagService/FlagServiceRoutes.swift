import FeatureFlags
import Hummingbird

/// The example's routes: each answer follows flags evaluated for the request that asked.
///
/// - `GET /checkout`: the new checkout or the old one (`new-checkout`, rolled out by user);
/// - `GET /catalog`: a page of the size `page-size` says (from the environment, a domain of its own);
/// - `POST /checkout/complete`: records the purchase as a tracking event for the provider.
public enum FlagServiceRoutes {
    /// A router for `api`, whose default provider serves the service's flags and whose `"env"`
    /// domain serves the environment's.
    public static func router(api: OpenFeatureAPI = .shared) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(
            middleware: FlagContextMiddleware(
                api: api, userHeader: .init("X-User")!, attributeHeaders: [(.init("X-Tier")!, "tier")]))
        let flags = api.client()
        let settings = api.client(domain: "env")
        router.get("checkout") { _, _ -> String in
            let details = flags.booleanDetails("new-checkout", default: false)
            return details.value ? "new checkout\n" : "old checkout\n"
        }
        router.get("catalog") { _, _ -> String in
            "page size \(settings.integer("page-size", default: 20))\n"
        }
        router.post("checkout/complete") { _, _ -> HTTPResponse.Status in
            flags.track("checkout-completed", details: TrackingEventDetails(value: 1))
            return .accepted
        }
        return router
    }
}
