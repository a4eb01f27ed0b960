/// A one-flag file: `key` is on or off.
func toggleFile(_ key: String, on: Bool) -> String {
    """
    {"flags": {"\(key)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "\(on ? "on" : "off")"}}}
    """
}
