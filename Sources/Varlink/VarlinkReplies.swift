import Locking
import Plumbing

/// The replies to one call, sent in order on its connection: any number that continue (when the
/// call asked for `more`), then one final reply. A `oneway` call's replies are not sent. (A call
/// asking for `upgrade` is answered as any other: no method here leaves varlink.)
public final class VarlinkReplies: Sendable {
    private let connection: LineConnection
    private let call: VarlinkCall
    /// Whether the final reply may be kept for the client to read later rather than waited on.
    private let keepsFinalReply: Bool
    private let state = Lock(State())

    private struct State {
        var finished = false
        var closing = false
        var failedToSend = false
    }

    /// Replies to `call` on `connection`. With `keepsFinalReply`, the final reply is written
    /// without waiting for the client to read (what does not fit is kept on the connection, for
    /// its server to send when the client reads): a call answered on a shared thread never holds
    /// it for a client that does not read. Replies that continue are always waited on: the call
    /// that sends them holds its thread anyway, and a kept one would not reach the client while
    /// the call waits for what it follows.
    init(connection: LineConnection, call: VarlinkCall, keepsFinalReply: Bool = false) {
        self.connection = connection
        self.call = call
        self.keepsFinalReply = keepsFinalReply
    }

    /// Whether the final reply was sent.
    var isFinished: Bool { state.withLock { $0.finished } }
    /// Whether a reply could not be written (the client went away).
    public var clientIsGone: Bool { state.withLock { $0.failedToSend } }

    /// Whether the connection ends after this call (``closeConnectionAfterReply()``).
    var closesConnection: Bool { state.withLock { $0.closing } }

    /// Ends the connection once this call's final reply is sent: for a handler that read from
    /// the connection itself, after which what follows on it is no longer sure to be varlink.
    package func closeConnectionAfterReply() {
        state.withLock { $0.closing = true }
    }

    /// Whether the client asked for several replies.
    public var acceptsMore: Bool { call.more }

    /// Sends the final reply with `parameters`.
    public func reply(_ parameters: [(key: String, value: VarlinkValue)]) {
        send(["parameters": .object(parameters)], final: true)
    }

    /// Sends a reply that says more follow; the call must have asked for `more`
    /// (``VarlinkError/expectedMore`` otherwise).
    public func replyContinuing(_ parameters: [(key: String, value: VarlinkValue)]) throws(VarlinkError) {
        guard call.more else { throw .expectedMore }
        send(["parameters": .object(parameters), "continues": .bool(true)], final: false)
    }

    /// The final reply of `parameters`, encoded once: what ``reply(encoded:)`` sends, for a
    /// service that gives the same answer again.
    package static func encodedReply(_ parameters: [(key: String, value: VarlinkValue)]) -> [UInt8] {
        VarlinkValue.object([("parameters", .object(parameters))]).message()
    }

    /// Sends a final reply encoded by ``encodedReply(_:)``.
    package func reply(encoded message: [UInt8]) {
        send(message: message, final: true)
    }

    /// Sends the final reply as an error.
    func fail(_ error: VarlinkError) {
        send(message: error.replyMessage, final: true)
    }

    private func send(_ members: KeyValuePairs<String, VarlinkValue>, final: Bool) {
        send(message: VarlinkValue.object(members.map { ($0.key, $0.value) }).message(), final: final)
    }

    private func send(message: [UInt8], final: Bool) {
        let proceed = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if final { state.finished = true }
            return true
        }
        guard proceed, !call.oneway else { return }
        let sent = message.withUnsafeBytes { bytes in
            final && keepsFinalReply ? connection.writeWithoutWaiting(bytes) != .failed : connection.write(bytes)
        }
        if !sent { state.withLock { $0.failedToSend = true } }
    }
}
