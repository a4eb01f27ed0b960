import Locking
import Varlink

/// `org.varlink.certification` served with this library: the interface varlink.org defines for
/// testing an implementation against the reference ones (the definition below is varlink's, as
/// the Python package ships it, Apache-2.0). A client calls Start, Test01 to Test11 and End, each
/// with what the previous call returned; any deviation is a `CertificationError`.
enum CertificationService {
    static let description = """
        interface org.varlink.certification

        type Interface (
          foo: ?[]?[string](foo, bar, baz),
          anon: (foo: bool, bar: bool)
        )

        type MyType (
          object: object,
          enum: (one, two, three),
          struct: (first: int, second: string),
          array: []string,
          dictionary: [string]string,
          stringset: [string](),
          nullable: ?string,
          nullable_array_struct: ?[](first: int, second: string),
          interface: Interface
        )

        method Start() -> (client_id: string)

        method Test01(client_id: string) -> (bool: bool)

        method Test02(client_id: string, bool: bool) -> (int: int)

        method Test03(client_id: string, int: int) -> (float: float)

        method Test04(client_id: string, float: float) -> (string: string)

        method Test05(client_id: string, string: string) -> (
          bool: bool,
          int: int,
          float: float,
          string: string
        )

        method Test06(
          client_id: string,
          bool: bool,
          int: int,
          float: float,
          string: string
        ) -> (
          struct: (
            bool: bool,
            int: int,
            float: float,
            string: string
          )
        )

        method Test07(
          client_id: string,
          struct: (
            bool: bool,
            int: int,
            float: float,
            string: string
          )
        ) -> (map: [string]string)

        method Test08(client_id: string, map: [string]string) -> (set: [string]())

        method Test09(client_id: string, set: [string]()) -> (mytype: MyType)

        # returns more than one reply with "continues"
        method Test10(client_id: string, mytype: MyType) -> (string: string)

        # must be called as "oneway"
        method Test11(client_id: string, last_more_replies: []string) -> ()

        method End(client_id: string) -> (all_ok: bool)

        error ClientIdError ()
        error CertificationError (wants: object, got: object)

        """

    static let struct5: VarlinkValue = .object([
        ("bool", .bool(false)), ("int", .int(2)), ("float", .float(Double.pi)), ("string", .string("a lot of string")),
    ])
    static let map: VarlinkValue = .object([("foo", .string("Foo")), ("bar", .string("Bar"))])
    static let set: VarlinkValue = .object([("one", .object([])), ("two", .object([])), ("three", .object([]))])
    static let myType: VarlinkValue = .object([
        (
            "object",
            .object([
                ("method", .string("org.varlink.certification.Test09")), ("parameters", .object([("map", map)])),
            ])
        ),
        ("enum", .string("two")),
        ("struct", .object([("first", .int(1)), ("second", .string("2"))])),
        ("array", .array([.string("one"), .string("two"), .string("three")])),
        ("dictionary", map), ("stringset", set), ("nullable", .null), ("nullable_array_struct", .null),
        (
            "interface",
            .object([
                (
                    "foo",
                    .array([
                        .null, .object([("foo", .string("foo")), ("bar", .string("bar"))]), .null,
                        .object([("one", .string("foo")), ("two", .string("bar"))]),
                    ])
                ),
                ("anon", .object([("foo", .bool(true)), ("bar", .bool(false))])),
            ])
        ),
    ])
    static let moreReplies = (1...10).map { "Reply number \($0)" }

    /// The methods in the order a client must call them.
    static let order = [
        "Start", "Test01", "Test02", "Test03", "Test04", "Test05", "Test06", "Test07", "Test08", "Test09", "Test10",
        "Test11", "End",
    ]

    /// Each client's next method, by client id; and whether any check failed.
    final class Progress: Sendable {
        let next = Lock<[String: String]>([:])
        let failures = Lock<[String]>([])
    }

    /// Two values equal as JSON: objects whatever their members' order, numbers whatever their form.
    static func same(_ left: VarlinkValue?, _ right: VarlinkValue?) -> Bool {
        switch (left, right) {
        case (.object(let a)?, .object(let b)?):
            let keys = Set(a.map(\.key))
            return a.count == b.count && keys == Set(b.map(\.key))
                && a.allSatisfy { member in same(member.value, b.first { $0.key == member.key }?.value) }
        case (.array(let a)?, .array(let b)?): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.int(let a)?, .float(let b)?), (.float(let b)?, .int(let a)?): return Double(a) == b
        default: return left == right
        }
    }

    /// Checks that `method` is the client's next and `parameters` what it must send; moves it on.
    static func step(
        _ progress: Progress, _ method: String, _ parameters: VarlinkValue, wants: [(String, VarlinkValue)]
    ) throws(VarlinkError) {
        guard case .string(let id)? = parameters["client_id"] else { throw .invalidParameter("client_id") }
        let expected = progress.next.withLock { $0[id] }
        guard let expected else { throw VarlinkError("org.varlink.certification.ClientIdError") }
        let wanted = VarlinkValue.object([("client_id", .string(id))] + wants)
        guard expected == method, same(parameters, wanted) else {
            progress.failures.withLock { $0.append("\(method): \(parameters.json)") }
            throw VarlinkError(
                "org.varlink.certification.CertificationError",
                [
                    ("wants", .object([("method", .string(expected)), ("parameters", wanted)])),
                    ("got", .object([("method", .string(method)), ("parameters", parameters)])),
                ])
        }
        let index = order.firstIndex(of: method)!
        progress.next.withLock { $0[id] = index + 1 < order.count ? order[index + 1] : nil }
    }

    static func interface(_ progress: Progress) -> VarlinkInterface {
        let methods: [String: VarlinkInterface.Handler] = [
            "Start": { call, replies throws(VarlinkError) in
                try call.allowOnly([])
                var generator = SystemRandomNumberGenerator()
                let id = String(generator.next() as UInt64, radix: 16)
                progress.next.withLock { $0[id] = "Test01" }
                replies.reply([("client_id", .string(id))])
            },
            "Test01": { call, replies throws(VarlinkError) in
                try step(progress, "Test01", call.parameters, wants: [])
                replies.reply([("bool", .bool(true))])
            },
            "Test02": { call, replies throws(VarlinkError) in
                try step(progress, "Test02", call.parameters, wants: [("bool", .bool(true))])
                replies.reply([("int", .int(1))])
            },
            "Test03": { call, replies throws(VarlinkError) in
                try step(progress, "Test03", call.parameters, wants: [("int", .int(1))])
                replies.reply([("float", .float(1.0))])
            },
            "Test04": { call, replies throws(VarlinkError) in
                try step(progress, "Test04", call.parameters, wants: [("float", .float(1.0))])
                replies.reply([("string", .string("ping"))])
            },
            "Test05": { call, replies throws(VarlinkError) in
                try step(progress, "Test05", call.parameters, wants: [("string", .string("ping"))])
                guard case .object(let members) = struct5 else { return }
                replies.reply(members)
            },
            "Test06": { call, replies throws(VarlinkError) in
                guard case .object(let members) = struct5 else { return }
                try step(progress, "Test06", call.parameters, wants: members)
                replies.reply([("struct", struct5)])
            },
            "Test07": { call, replies throws(VarlinkError) in
                try step(progress, "Test07", call.parameters, wants: [("struct", struct5)])
                replies.reply([("map", map)])
            },
            "Test08": { call, replies throws(VarlinkError) in
                try step(progress, "Test08", call.parameters, wants: [("map", map)])
                replies.reply([("set", set)])
            },
            "Test09": { call, replies throws(VarlinkError) in
                try step(progress, "Test09", call.parameters, wants: [("set", set)])
                replies.reply([("mytype", myType)])
            },
            "Test10": { call, replies throws(VarlinkError) in
                guard call.more else { throw .expectedMore }
                // A client may leave out the null members.
                var sent = call.parameters
                if case .object(let members) = sent, case .object(let type)? = sent["mytype"] {
                    let kept = type.filter { !($0.value == .null) }
                    sent = .object(members.map { $0.key == "mytype" ? ("mytype", .object(kept)) : $0 })
                }
                guard case .object(let type) = myType else { return }
                let wantedType = VarlinkValue.object(type.filter { !($0.value == .null) })
                try step(progress, "Test10", sent, wants: [("mytype", wantedType)])
                for (index, text) in moreReplies.enumerated() {
                    if index < moreReplies.count - 1 {
                        try replies.replyContinuing([("string", .string(text))])
                    } else {
                        replies.reply([("string", .string(text))])
                    }
                }
            },
            "Test11": { call, replies throws(VarlinkError) in
                guard call.oneway else {
                    progress.failures.withLock { $0.append("Test11 was not oneway") }
                    throw VarlinkError("org.varlink.certification.CertificationError")
                }
                try step(
                    progress, "Test11", call.parameters,
                    wants: [("last_more_replies", .array(moreReplies.map(VarlinkValue.string)))])
            },
            "End": { call, replies throws(VarlinkError) in
                try step(progress, "End", call.parameters, wants: [])
                replies.reply([("all_ok", .bool(progress.failures.withLock { $0.isEmpty }))])
            },
        ]
        return VarlinkInterface(name: "org.varlink.certification", description: description, methods: methods)
    }
}
