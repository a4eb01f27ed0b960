import FeatureFlags
import HTTPTypes
import Hummingbird

/// Makes each request an OpenFeature transaction: its evaluation context (the user as targeting
/// key, and the headers chosen) is set for the request's handling, so every flag the handler, or
/// anything it calls, evaluates through a client is targeted at this request without passing the
/// context along (OpenFeature's transaction context propagation, 3.3).
///
/// The user is taken from `userHeader` here, which a proxy that authenticated the request sets;
/// a service with HummingbirdAuth would take `context.identity` instead.
public struct FlagContextMiddleware<Context: RequestContext>: RouterMiddleware {
    let api: OpenFeatureAPI
    let userHeader: HTTPField.Name
    let attributeHeaders: [(name: HTTPField.Name, attribute: String)]

    /// - Parameters:
    ///   - api: The API whose transaction context is set.
    ///   - userHeader: The header naming the request's user (the targeting key).
    ///   - attributeHeaders: Headers copied into the context, each under an attribute name.
    public init(
        api: OpenFeatureAPI = .shared, userHeader: HTTPField.Name,
        attributeHeaders: [(name: HTTPField.Name, attribute: String)] = []
    ) {
        self.api = api
        self.userHeader = userHeader
        self.attributeHeaders = attributeHeaders
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var attributes: [String: FlagValue] = [:]
        for (name, attribute) in attributeHeaders {
            if let value = request.headers[name] { attributes[attribute] = .string(value) }
        }
        let flagContext = FlagEvaluationContext(targetingKey: request.headers[userHeader], attributes: attributes)
        return try await api.withTransactionContext(flagContext) {
            try await next(request, context)
        }
    }
}
