import FeatureFlags
import Testing

/// flagd's format in YAML.
@Suite("YAML flag files")
struct YAMLFlagTests {
    static let yaml = """
        flags:
          new-export:
            state: ENABLED
            variants:
              on: true
              off: false
            defaultVariant: off
            targeting:
              if:
                - in:
                    - var: user
                    - [alice, bob]
                - on
                - off
          retries:
            state: ENABLED
            variants: { few: 2, many: 10 }
            defaultVariant: many
        metadata:
          team: storage
        """

    @Test("variants named on and off stay strings (YAML 1.2), and targeting works")
    func yamlFlags() throws {
        let flags = FlagStore([try FlagSet.parse(Self.yaml, file: "flags.yaml")], context: FlagEvaluationContext())
        let alice = flags.evaluation("new-export", default: false, context: .init(attributes: ["user": "alice"]))
        #expect(alice.value == true)
        #expect(alice.variant == "on")
        #expect(flags.value("new-export", default: true, context: .init(attributes: ["user": "carol"])) == false)
        #expect(flags.value("retries", default: 0) == 10)
        #expect(alice.flagMetadata["team"] == "storage")
    }

    @Test("a YAML error names the line")
    func yamlErrorLine() throws {
        let broken = Self.yaml.replacingOccurrences(of: "defaultVariant: many", with: "defaultVariant: lots")
        let error = try #require(definitionError(broken, format: .yaml))
        #expect(error.location?.line == 18)
        #expect(error.message.contains("\"lots\""))
    }
}
