import ConfigurationFiles

extension DocumentNode {
    /// The plain value, without locations.
    package var value: FlagValue {
        switch kind {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let value): .number(value)
        case .string(let value): .string(value)
        case .array(let elements): .list(elements.map(\.value))
        case .object(let members):
            .structure(Dictionary(members.map { ($0.key, $0.value.value) }, uniquingKeysWith: { _, last in last }))
        }
    }
}
