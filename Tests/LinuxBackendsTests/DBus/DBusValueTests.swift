import Testing

@testable import LinuxBackends

/// D-Bus values as calls are built from them and replies read: signatures as the D-Bus
/// specification writes them, and the readers that take only what they expect. No bus needed.
struct DBusValueTests {
    @Test("each value's signature, containers included; an empty array keeps its element's type")
    func signatures() {
        let cases: [(DBusValue, String)] = [
            (.byte(1), "y"), (.boolean(true), "b"), (.int16(-1), "n"), (.uint16(1), "q"), (.int32(-1), "i"),
            (.uint32(1), "u"), (.int64(-1), "x"), (.uint64(1), "t"), (.double(0.5), "d"), (.string("s"), "s"),
            (.objectPath("/"), "o"), (.signature("s"), "g"), (.unixFD, "h"), (.variant(.string("x")), "v"),
            (.array(element: "s", []), "as"),
            (.structure([.string("unix-process"), .variantDictionary(["pid": .uint32(1)])]), "(sa{sv})"),
            (.stringDictionary(["b": "2", "a": "1"]), "a{ss}"),
        ]
        for (value, signature) in cases { #expect(value.signature == signature, "\(value)") }
    }

    @Test("dictionaries are written with their keys sorted, so a call is the same every time")
    func sortedDictionaries() {
        let value = DBusValue.stringDictionary(["polkit.message": "m", "action": "a"])
        guard case .array(_, let entries) = value else {
            Issue.record("not an array")
            return
        }
        #expect(entries == [.entry(.string("action"), .string("a")), .entry(.string("polkit.message"), .string("m"))])
        #expect(value.dictionary == ["action": .string("a"), "polkit.message": .string("m")])
    }

    @Test("readers take only their own type: a negative number is no unsigned, a variant is unwrapped in a dictionary")
    func readers() {
        #expect(DBusValue.string("x").stringValue == "x" && DBusValue.int32(1).stringValue == nil)
        #expect(DBusValue.boolean(false).booleanValue == false && DBusValue.byte(0).booleanValue == nil)
        #expect(DBusValue.uint32(7).unsignedValue == 7 && DBusValue.int64(-1).unsignedValue == nil)
        #expect(DBusValue.int16(5).unsignedValue == 5 && DBusValue.double(1).unsignedValue == nil)
        #expect(DBusValue.structure([.byte(1)]).members == [.byte(1)] && DBusValue.byte(1).members == nil)
        let details = DBusValue.variantDictionary(["pid": .uint32(42), "start-time": .uint64(7)])
        #expect(details.dictionary == ["pid": .uint32(42), "start-time": .uint64(7)])
        // Not a string-keyed dictionary: nothing, never a partial one.
        #expect(DBusValue.array(element: "{us}", [.entry(.uint32(1), .string("a"))]).dictionary == nil)
        #expect(DBusValue.array(element: "{ss}", [.string("not an entry")]).dictionary == nil)
    }
}
