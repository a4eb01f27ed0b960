package import Plumbing
import SystemPackage

/// Serves varlink calls on one connection until the client closes it, breaks the protocol or
/// stays silent past the idle timeout (``VarlinkLimits``): each message a JSON object ended by a
/// NUL byte, answered in order (varlink.org). `org.varlink.service` is answered here; every
/// other interface by its handlers.
package struct VarlinkConnection {
    package typealias Limits = VarlinkLimits
    package typealias End = VarlinkService.End

    let connection: LineConnection
    let info: VarlinkServiceInfo
    let interfaces: [String: VarlinkInterface]
    let limits: Limits
    /// Signalled when the service stops: a connection waiting for its next call ends.
    let stopping: Wakeup?
    /// Whether a call on another connection waits for one on this connection (an answer to a
    /// question asked there): then this one outlasts its idle timeout and a stop, until it does not.
    let awaited: (@Sendable () -> Bool)?

    package init(
        connection: LineConnection, info: VarlinkServiceInfo, interfaces: [VarlinkInterface], limits: Limits = Limits(),
        stopping: Wakeup? = nil, awaited: (@Sendable () -> Bool)? = nil
    ) {
        self.stopping = stopping
        self.awaited = awaited
        self.connection = connection
        self.info = info
        self.interfaces = Dictionary(interfaces.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.limits = limits
    }

    /// Whether a call on another connection waits for one on this connection now.
    package var isAwaited: Bool { awaited?() == true }

    /// Serves calls until the connection ends.
    package func serve() -> End {
        let interrupt = stopping?.descriptor
        while true {
            // Between calls: a stopping service takes no more (pipelined ones included), except
            // the one another call waits for (asked only then: not a lock on every call's path).
            let isStopping = stopping?.wasSignalled == true
            if isStopping, awaited?() != true { return .stopped }
            let message: [UInt8]
            switch connection.readLine(
                limit: limits.messageSize, until: .now + limits.idleTimeout, interrupt: isStopping ? nil : interrupt,
                terminator: 0)
            {
            case .line(let bytes): message = bytes
            case .end: return .closed
            case .timedOut:
                if awaited?() == true { continue }
                return .refused("no call within \(limits.idleTimeout)")
            case .tooLong: return .refused("a message longer than \(limits.messageSize) bytes")
            case .interrupted: continue
            }
            if let end = answer(message) { return end }
        }
    }

    /// One turn of a connection an epoll set found readable, or able to take a reply it kept
    /// (`WaitingConnections`): sends what was kept; then answers each whole call already read, in
    /// order, and reads what has arrived without waiting for more only when none is left. A reply
    /// the client has no room for is kept and ends the turn (``WaitingConnections/Turn/writing``):
    /// the next call is answered once the client has read it, so a client that sends calls and
    /// reads nothing holds no thread, and what it sent waits in its own socket.
    package func serveArrived() -> WaitingConnections.Turn {
        switch connection.flushKept() {
        case .all: break
        case .kept: return .writing
        case .failed: return .over
        }
        var answered = false
        var received = false
        while true {
            // A stopping service takes no more calls, except on a connection another call waits for.
            if stopping?.wasSignalled == true, awaited?() != true { return .over }
            switch connection.bufferedLine(limit: limits.messageSize, terminator: 0) {
            case nil:
                if received { return answered ? .answered : .partial }
                guard connection.receiveArrived() else { return .over }
                received = true
            case .line(let message):
                if answer(message, keepingFinalReply: true) != nil {
                    // Ends after its reply (closeConnectionAfterReply): what the socket takes now of it.
                    _ = connection.flushKept()
                    return .over
                }
                answered = true
                if connection.keepsOutput { return .writing }
            case .tooLong, .end, .timedOut, .interrupted: return .over
            }
        }
    }

    /// Answers one message: nil when the connection goes on, else how it ended.
    private func answer(_ message: [UInt8], keepingFinalReply: Bool = false) -> End? {
        let call: VarlinkCall
        do throws(VarlinkProtocolError) {
            call = try VarlinkCall(message: message)
        } catch {
            return .refused(error.description)
        }
        let replies = VarlinkReplies(connection: connection, call: call, keepsFinalReply: keepingFinalReply)
        do throws(VarlinkError) {
            try answer(call, replies)
            // A handler that forgot its reply still ends the call, or the client would wait forever.
            if !replies.isFinished { replies.reply([]) }
        } catch {
            replies.fail(error)
        }
        return replies.clientIsGone || replies.closesConnection ? .closed : nil
    }

    private func answer(_ call: VarlinkCall, _ replies: VarlinkReplies) throws(VarlinkError) {
        if call.interface == "org.varlink.service" { return try answerService(call, replies) }
        guard let interface = interfaces[call.interface] else { throw .interfaceNotFound(call.interface) }
        guard let handler = interface.methods[call.method] else { throw .methodNotFound(call.qualifiedMethod) }
        try handler(call, replies)
    }

    private func answerService(_ call: VarlinkCall, _ replies: VarlinkReplies) throws(VarlinkError) {
        switch call.method {
        case "GetInfo":
            try call.allowOnly([])
            replies.reply([
                ("vendor", .string(info.vendor)), ("product", .string(info.product)),
                ("version", .string(info.version)), ("url", .string(info.url)),
                ("interfaces", .array((["org.varlink.service"] + interfaces.keys.sorted()).map(VarlinkValue.string))),
            ])
        case "GetInterfaceDescription":
            try call.allowOnly(["interface"])
            let name = try call.string("interface")
            if name == "org.varlink.service" {
                replies.reply([("description", .string(Self.serviceDescription))])
                return
            }
            guard let interface = interfaces[name] else { throw .interfaceNotFound(name) }
            replies.reply([("description", .string(interface.description))])
        default:
            throw .methodNotFound(call.qualifiedMethod)
        }
    }

    /// The service interface every varlink service answers.
    static let serviceDescription = """
        # Answered by every varlink service: what it is, and what it offers.
        interface org.varlink.service

        # The service's maker, name, version, address, and the interfaces it answers.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # One interface's definition.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # No interface of that name is answered here.
        error InterfaceNotFound (interface: string)

        # The interface has no method of that name.
        error MethodNotFound (method: string)

        # The interface has the method, but this service does not answer it.
        error MethodNotImplemented (method: string)

        # A parameter is missing, of the wrong type, or not expected.
        error InvalidParameter (parameter: string)

        # The caller may not make this call.
        error PermissionDenied ()

        # The method sends several replies: call it with more.
        error ExpectedMore ()

        """
}
