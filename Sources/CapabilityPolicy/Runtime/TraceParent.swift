public import Tracing

/// A W3C Trace Context `traceparent` (version 00: `00-TRACEID-PARENTID-FLAGS`), read as the
/// recommendation's section 3.2 says: lower-case hexadecimal only, a trace id and a parent id
/// that are not all zeros, version `ff` refused, a later version read by its first four fields.
/// What capctld takes with a call (`traceparent`) and `capctl` from the environment
/// (`TRACEPARENT`), so that a decision joins the caller's trace and its audit record names it.
///
/// ```swift
/// let parent = TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
/// print(parent?.traceID ?? "none")  // 4bf92f3577b34da6a3ce929d0e0e4736
/// ```
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// The trace's id: 32 lower-case hexadecimal digits.
    public let traceID: String
    /// The caller's span: 16 lower-case hexadecimal digits.
    public let parentID: String
    /// The trace flags (bit 0: sampled).
    public let flags: UInt8

    /// Reads `header`; nil when it is not a valid `traceparent`.
    public init?(_ header: String) {
        let bytes = Array(header.utf8)
        // version(2) - trace-id(32) - parent-id(16) - flags(2): 55 bytes; a later version may add
        // fields after another dash.
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"),
            bytes[52] == UInt8(ascii: "-"), bytes.count == 55 || bytes[55] == UInt8(ascii: "-")
        else { return nil }
        func hex(_ range: Range<Int>) -> String? {
            let slice = bytes[range]
            guard slice.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
            return String(decoding: slice, as: UTF8.self)
        }
        guard let version = hex(0..<2), version != "ff", version == "00" ? bytes.count == 55 : true,
            let traceID = hex(3..<35), let parentID = hex(36..<52), let flags = hex(53..<55),
            traceID.utf8.contains(where: { $0 != UInt8(ascii: "0") }),
            parentID.utf8.contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        self.traceID = traceID
        self.parentID = parentID
        self.flags = UInt8(flags, radix: 16)!
    }

    /// The header, as version 00 writes it.
    public var description: String {
        let flagDigits = String(flags, radix: 16)
        return "00-\(traceID)-\(parentID)-" + (flagDigits.count == 1 ? "0" + flagDigits : flagDigits)
    }

    /// The context that continues this trace, as the bootstrapped instrument extracts it (the
    /// same as `InstrumentationContext.topLevel` without one): run a decision in it
    /// (`InstrumentationContext.withValue`) and its spans are children of the caller's.
    public var context: InstrumentationContext {
        var context = InstrumentationContext.topLevel
        InstrumentationSystem.instrument.extract(
            ["traceparent": description], into: &context, using: HeaderExtractor())
        return context
    }

    /// The `traceparent` of the span `context` is in, as the bootstrapped instrument writes it;
    /// nil without a tracer or a span.
    public static func current(in context: InstrumentationContext = .current ?? .topLevel) -> TraceParent? {
        guard GateTracing.isTracing else { return nil }
        var headers: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &headers, using: HeaderInjector())
        return headers["traceparent"].flatMap(TraceParent.init)
    }
}

private struct HeaderExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}

private struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}
