/// A parsed JSON or YAML document, each node knowing where it came from, so every later
/// error can name a line and column.
package struct DocumentNode: Sendable {
    package enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([DocumentNode])
        /// Members in file order; keys are unique (the readers reject duplicates).
        case object([Member])
    }

    package struct Member: Sendable {
        package var key: String
        package var keyLocation: FileLocation
        package var value: DocumentNode

        package init(key: String, keyLocation: FileLocation, value: DocumentNode) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    package var kind: Kind
    package var location: FileLocation

    package var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The type with its article, for messages: "found \(node.describedType)".
    package var describedType: String {
        switch kind {
        case .null: "null"
        case .array, .object: "an " + typeName
        default: "a " + typeName
        }
    }

    package var isCollection: Bool {
        switch kind {
        case .array, .object: true
        default: false
        }
    }

    package func member(_ key: String) -> Member? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }
    }
}
