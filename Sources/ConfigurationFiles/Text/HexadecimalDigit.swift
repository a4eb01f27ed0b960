extension UInt8 {
    /// The value of an ASCII hexadecimal digit (`0-9`, `a-f`, `A-F`), or nil: for the `\u` and
    /// `\x` escapes of the JSON and YAML readers, and varlink's messages.
    package var hexadecimalDigitValue: UInt32? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(self - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(self - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(self - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
