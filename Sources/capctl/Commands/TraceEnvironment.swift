import CapabilityPolicy
import Glibc

/// The trace a command is part of: the environment's `TRACEPARENT` (W3C Trace Context, carried
/// in the environment as OpenTelemetry's environment carriers do), sent to capctld with a check
/// and written in the audit record (`CAPCTL_TRACE_ID`). A malformed one is ignored, as the
/// recommendation says a receiver must.
enum TraceEnvironment {
    static let traceParent: TraceParent? = getenv("TRACEPARENT").flatMap { TraceParent(String(cString: $0)) }
}
