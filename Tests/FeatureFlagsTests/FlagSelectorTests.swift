import ConfigurationFiles
import FeatureFlags
import TestSupport
import Testing

/// Flag sets and selectors as flagd 0.13 and later define them (docs/reference/selector-syntax.md,
/// docs/concepts/selectors.md): one file, several flag sets, the array form, a store per selection.
@Suite("Flag selectors and flag sets")
struct FlagSelectorTests {
    /// flagd's own example of the array form: one key in two flag sets, one enabled, one not.
    static let arrayForm = """
        {
          "metadata": { "version": "v1" },
          "flags": [
            { "key": "checkout-flow", "state": "ENABLED", "variants": { "on": true, "off": false },
              "defaultVariant": "on", "metadata": { "flagSetId": "payment-service" } },
            { "key": "checkout-flow", "state": "DISABLED", "variants": { "on": true, "off": false },
              "defaultVariant": "off", "metadata": { "flagSetId": "user-service" } },
            { "key": "banner", "state": "ENABLED", "variants": { "a": "A", "b": "B" }, "defaultVariant": "b" }
          ]
        }
        """

    @Test("selectors read as flagd writes them, and a key flagd does not define is refused")
    func parsing() throws {
        #expect(try FlagSelector("flagSetId=payments").criterion == .flagSet("payments"))
        #expect(try FlagSelector("flagSetId=").criterion == .flagSet(nil))
        #expect(try FlagSelector("source=config/flags.json").criterion == .source("config/flags.json"))
        #expect(try FlagSelector("config/flags.json").criterion == .source("config/flags.json"))
        #expect(try FlagSelector("flagSetId=a=b").criterion == .flagSet("a=b"))
        #expect(try FlagSelector("flagSetId=x").description == "flagSetId=x")
        for bad in ["", "flagSet=x", "source=", "FLAGSETID=x", "=x"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try FlagSelector(bad) }
        }
    }

    @Test("the array form keeps one key in several flag sets, and each flag knows its set")
    func arrayFormFlagSets() throws {
        let flags = try FlagSet.parse(Self.arrayForm, file: "sets.json")
        #expect(flags.problems.isEmpty, "\(flags.problems)")
        #expect(flags.flags.keys.sorted() == ["banner", "checkout-flow"])
        #expect(
            flags.flags["checkout-flow"]?.flagSetID == "user-service", "the later definition answers without a selector"
        )
        #expect(flags.flags["banner"]?.flagSetID == nil)
        #expect(flags.flags["banner"]?.metadata["version"] == .string("v1"), "the set's metadata is inherited")
    }

    @Test("a store with a flag set selector sees that set's flags only")
    func flagSetSelection() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Self.arrayForm, to: "sets.json")
        func store(_ selector: String?) throws -> FlagStore {
            FlagStore(sources: [.file(path)], watchesFiles: false, selector: try selector.map(FlagSelector.init))
        }
        let payments = try store("flagSetId=payment-service").evaluation("checkout-flow", default: false)
        #expect(payments.value == true && payments.reason == .static)
        #expect(payments.flagMetadata["flagSetId"] == .string("payment-service"))
        let users = try store("flagSetId=user-service").evaluation("checkout-flow", default: true)
        #expect(users.value == true && users.reason == .disabled)
        let outside = try store("flagSetId=payment-service").evaluation("banner", default: "none")
        #expect(outside.errorCode == .flagNotFound && outside.value == "none")
        #expect(outside.errorMessage?.contains("selected by flagSetId=payment-service") == true)
        let noSet = try store("flagSetId=").evaluation("banner", default: "none")
        #expect(noSet.value == "B")
        #expect(try store("flagSetId=").evaluation("checkout-flow", default: false).errorCode == .flagNotFound)
        #expect(try store("source=\(path)").evaluation("banner", default: "none").value == "B")
        #expect(try store("source=elsewhere.json").evaluation("banner", default: "none").errorCode == .flagNotFound)
    }

    @Test("mistakes in the array form are reported with their position; the rest of the file loads")
    func arrayFormProblems() throws {
        let text = """
            {"flags": [
              {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"},
              {"key": 7, "state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"},
              "not a flag",
              {"key": "twice", "state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"},
              {"key": "twice", "state": "ENABLED", "variants": {"off": false}, "defaultVariant": "off"},
              {"key": "fine", "state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "extra": 1}
            ]}
            """
        let flags = try FlagSet.parse(text, file: "bad.json")
        let messages = flags.problems.map(\.description)
        #expect(flags.flags.keys.sorted() == ["fine", "twice"])
        #expect(flags.flags["twice"]?.variants["off"] == .bool(false), "the later definition wins, as in flagd")
        #expect(messages.contains { $0.contains("bad.json:2:") && $0.contains("needs \"key\"") }, "\(messages)")
        #expect(messages.contains { $0.contains("bad.json:3:") && $0.contains("\"key\" must be a non-empty string") })
        #expect(messages.contains { $0.contains("bad.json:4:") && $0.contains("is an object with a \"key\"") })
        #expect(messages.contains { $0.contains("bad.json:6:") && $0.contains("defined again in no flag set") })
        #expect(messages.contains { $0.contains("bad.json:7:") && $0.contains("unknown property \"extra\"") })
        #expect(!messages.contains { $0.contains("unknown property \"key\"") })
    }
}
