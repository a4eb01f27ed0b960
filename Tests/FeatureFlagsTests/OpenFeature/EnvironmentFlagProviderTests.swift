import FeatureFlags
import Testing

/// Flags from environment variables: names, types, and every way a variable can be wrong.
@Suite("Environment variable provider")
struct EnvironmentFlagProviderTests {
    static let environment = [
        "FEATURE_NEW_CHECKOUT": "true", "FEATURE_PAGE_SIZE": "50", "FEATURE_RATIO": "0.25",
        "FEATURE_BANNER": #"{"text": "Hello", "count": 2}"#, "FEATURE_BROKEN_JSON": "{",
        "FEATURE_YES": "yes", "FEATURE_HUGE": "99999999999999999999", "FEATURE_NAN": "nan",
        "new-checkout": "false",
    ]

    @Test("values read as the type asked for, with reason STATIC, through a client")
    func values() async {
        let api = OpenFeatureAPI()
        await api.setProvider(EnvironmentFlagProvider(environment: Self.environment, prefix: "FEATURE_"))
        let client = api.client()
        #expect(client.boolean("new-checkout", default: false) == true)
        #expect(client.integer("page-size", default: 10) == 50)
        #expect(client.double("ratio", default: 1) == 0.25)
        #expect(client.double("page-size", default: 1) == 50)
        #expect(client.string("page-size", default: "") == "50")
        #expect(client.object("banner", default: .null) == .structure(["text": "Hello", "count": 2]))
        let details = client.booleanDetails("new-checkout", default: false)
        #expect(details.reason == .static && details.errorCode == nil)
    }

    @Test("a variable not set, or not of the type asked for, is the caller's default with an error")
    func errors() {
        let provider = EnvironmentFlagProvider(environment: Self.environment, prefix: "FEATURE_")
        let missing = provider.resolveBooleanEvaluation("absent", default: true, context: nil)
        #expect(missing.value == true && missing.errorCode == .flagNotFound)
        #expect(missing.errorMessage?.contains("FEATURE_ABSENT") == true)
        let notBoolean = provider.resolveBooleanEvaluation("yes", default: false, context: nil)
        #expect(notBoolean.value == false && notBoolean.errorCode == .typeMismatch && notBoolean.reason == .error)
        #expect(provider.resolveIntegerEvaluation("ratio", default: 7, context: nil).errorCode == .typeMismatch)
        #expect(provider.resolveIntegerEvaluation("huge", default: 7, context: nil).value == 7)
        #expect(provider.resolveDoubleEvaluation("nan", default: 1, context: nil).errorCode == .typeMismatch)
        let json = provider.resolveObjectEvaluation("broken-json", default: .string("d"), context: nil)
        #expect(json.value == .string("d") && json.errorCode == .parseError)
        #expect(provider.resolveObjectEvaluation("absent", default: .null, context: nil).errorCode == .flagNotFound)
    }

    @Test("naming: upper snake case after the prefix by default, or the key exactly")
    func naming() {
        let snake = EnvironmentFlagProvider(environment: Self.environment, prefix: "FEATURE_")
        #expect(snake.variableName(for: "new-checkout.v2 x") == "FEATURE_NEW_CHECKOUT_V2_X")
        let exact = EnvironmentFlagProvider(environment: Self.environment, naming: .exact)
        #expect(exact.resolveBooleanEvaluation("new-checkout", default: true, context: nil).value == false)
    }

    @Test("without an environment given, the process's is read when the provider is made")
    func processEnvironment() {
        let provider = EnvironmentFlagProvider(naming: .exact)
        // PATH is set for every test process this suite runs in.
        #expect(provider.resolveStringEvaluation("PATH", default: "", context: nil).errorCode == nil)
        #expect(provider.resolveStringEvaluation("PATH", default: "", context: nil).value.contains("/"))
    }
}
