import FeatureFlags

/// The JSON Schema of policy files, generated from the registered capability kinds, so the
/// schema editors validate against and the parser cannot drift apart (`capctl schema` prints
/// it; Docs/policy.schema.json is its output, and a test fails when that file is stale).
public enum PolicySchema {
    /// The schema for the kinds of `environment`, as indented JSON with sorted keys.
    public static func json(for environment: PolicyEnvironment = .portable) -> String {
        render(document(kinds: environment.kinds), indent: "") + "\n"
    }

    static func document(kinds: [any CapabilityKind]) -> FlagValue {
        let name: FlagValue = ["$ref": "#/$defs/name"]
        func operatorNode(_ key: String, _ operand: FlagValue) -> FlagValue {
            ["type": "object", "additionalProperties": false, "required": [.string(key)], "properties": [key: operand]]
        }
        let requirementList: FlagValue = ["type": "array", "minItems": 1, "items": ["$ref": "#/$defs/requirement"]]
        let requirement: FlagValue = [
            "description": "A capability name, or one operator with its operand.",
            "oneOf": [
                name,
                operatorNode("capability", name),
                operatorNode("flag", ["type": "string", "minLength": 1]),
                operatorNode("gate", name),
                operatorNode("all-of", requirementList),
                operatorNode("any-of", requirementList),
                operatorNode("not", ["$ref": "#/$defs/requirement"]),
                operatorNode("silent", ["$ref": "#/$defs/requirement"]),
            ],
        ]
        let capability: FlagValue = [
            "type": "object",
            "required": ["kind"],
            "oneOf": .list(kinds.map(kindSchema)),
        ]
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/swift-capabilities/swift-capabilities/Docs/policy.schema.json",
            "title": "capctl policy file",
            "description": "Capabilities, flag sources and gates. See Docs/Policy.md.",
            "type": "object",
            "additionalProperties": false,
            "properties": [
                "audit": [
                    "description": "Which decisions capctl records in the audit trail (all by default).",
                    "enum": .list(AuditLevel.allCases.map { .string($0.rawValue) }),
                ],
                "final": [
                    "description":
                        "In a system policy file: the per-user layer ($XDG_CONFIG_HOME/capctl) may add definitions but not replace the system's.",
                    "type": "boolean",
                ],
                "capabilities": [
                    "type": "object", "propertyNames": name, "additionalProperties": ["$ref": "#/$defs/capability"],
                ],
                "flags": [
                    "type": "object",
                    "additionalProperties": false,
                    "properties": [
                        "files": [
                            "description":
                                "flagd flag definition files (JSON or YAML); relative paths are relative to this policy file.",
                            "type": "array",
                            "items": ["type": "string", "minLength": 1],
                        ],
                        "inline": [
                            "description": "A flagd flag definition document: flags, $evaluators, metadata.",
                            "type": "object",
                            "required": ["flags"],
                        ],
                        "http": [
                            "description":
                                "Flag services: flagd-format documents polled over HTTP (flagd's HTTP sync). Later layers replace a service with the same URL.",
                            "type": "array",
                            "items": [
                                "type": "object",
                                "additionalProperties": false,
                                "required": ["url"],
                                "properties": [
                                    "url": [
                                        "description":
                                            "https:// or http://, no credentials (they go in authorization-file).",
                                        "type": "string", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#]+",
                                    ],
                                    "authorization-file": [
                                        "description":
                                            "A file (read through the trusted reader before each request) holding the Authorization header's value.",
                                        "type": "string", "minLength": 1,
                                    ],
                                    "ca-file": [
                                        "description":
                                            "PEM certificate authorities to trust for this URL instead of the system's.",
                                        "type": "string", "minLength": 1,
                                    ],
                                    "interval": ["$ref": "#/$defs/duration"],
                                    "jitter": [
                                        "description":
                                            "How much each wait may differ from interval, as a fraction (0.1 by default).",
                                        "type": "number", "minimum": 0, "maximum": 0.5,
                                    ],
                                    "timeout": ["$ref": "#/$defs/duration"],
                                    "max-staleness": ["$ref": "#/$defs/duration"],
                                    "cache-file": [
                                        "description":
                                            "Where root keeps the last good copy (default /var/lib/capctl/flags/<hash of the URL>.json).",
                                        "type": "string", "minLength": 1,
                                    ],
                                ],
                            ],
                        ],
                    ],
                ],
                "gates": [
                    "type": "object",
                    "propertyNames": name,
                    "additionalProperties": [
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["require"],
                        "properties": ["description": ["type": "string"], "require": ["$ref": "#/$defs/requirement"]],
                    ],
                ],
            ],
            "$defs": [
                "name": ["type": "string", "pattern": "^[A-Za-z0-9._:-]+$"],
                "duration": [
                    "description": "A duration such as 300ms, 30s, 5m or 1h, or a number of seconds.",
                    "oneOf": [
                        ["type": "string", "pattern": "^[1-9][0-9]*(ms|s|m|h)$"],
                        ["type": "number", "exclusiveMinimum": 0],
                    ],
                ],
                "requirement": requirement,
                "capability": capability,
            ],
        ]
    }

    private static func kindSchema(_ kind: any CapabilityKind) -> FlagValue {
        var properties: [String: FlagValue] = [
            "kind": ["const": .string(kind.name)], "description": ["type": "string"],
        ]
        for setting in kind.settings { properties[setting.key] = settingSchema(setting) }
        var schema: [String: FlagValue] = [
            "description": .string(kind.summary), "properties": .structure(properties), "additionalProperties": false,
        ]
        let required = kind.settings.filter(\.isRequired).map { FlagValue.string($0.key) }
        if !required.isEmpty { schema["required"] = .list(required) }
        return .structure(schema)
    }

    private static func settingSchema(_ setting: CapabilitySetting) -> FlagValue {
        var schema: [String: FlagValue]
        switch setting.type {
        case .string: schema = ["type": "string", "minLength": 1]
        case .absolutePath: schema = ["type": "string", "pattern": "^/"]
        case .duration: schema = ["$ref": "#/$defs/duration"]
        case .boolean: schema = ["type": "boolean"]
        case .integer(let range):
            schema = [
                "type": "integer", "minimum": .number(Double(range.lowerBound)),
                "maximum": .number(Double(range.upperBound)),
            ]
        case .choice(let allowed): schema = ["enum": .list(allowed.map(FlagValue.string))]
        case .choices(let allowed):
            schema = ["type": "array", "minItems": 1, "items": ["enum": .list(allowed.map(FlagValue.string))]]
        case .pattern(let pattern): schema = ["type": "string", "pattern": .string(pattern)]
        case .stringMap: schema = ["type": "object", "additionalProperties": ["type": "string"]]
        case .anyValue: schema = [:]
        }
        // A $ref stands alone in older drafts' tools; its meaning is documented at the definition.
        if !setting.summary.isEmpty, schema["$ref"] == nil { schema["description"] = .string(setting.summary) }
        return .structure(schema)
    }

    /// Indented JSON, keys sorted, two spaces per level.
    static func render(_ value: FlagValue, indent: String) -> String {
        let inner = indent + "  "
        switch value {
        case .list(let elements) where !elements.isEmpty:
            return "[\n" + elements.map { inner + render($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        case .structure(let members) where !members.isEmpty:
            let lines = members.sorted { $0.key < $1.key }.map {
                inner + FlagValue.string($0.key).description + ": " + render($0.value, indent: inner)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return value.description
        }
    }
}
