import Capabilities
import ConfigurationFiles
import Foundation
import Glibc
import LinuxBackends
import TestSupport
import Testing

/// Reachability against real sockets on loopback, and the "unsatisfied" and change paths in a
/// network namespace of the test's own.
@Suite("Network reachability", .timeLimit(.minutes(5)))
struct NetworkReachabilityTests {
    @Test("bad input is refused when the capability is made")
    func badInput() throws {
        #expect(throws: CapabilityConfigurationError.self) { try HostReachability(host: "db.example.com", port: 0) }
        #expect(throws: CapabilityConfigurationError.self) {
            try HostReachability(host: "db.example.com", port: 70_000)
        }
        #expect(throws: CapabilityConfigurationError.self) { try HostReachability(host: "not a host!", port: 80) }
        #expect(throws: CapabilityConfigurationError.self) { try HostReachability(host: "", port: 80) }
        #expect(throws: CapabilityConfigurationError.self) { try HostReachability(host: "-bad.example", port: 80) }
        #expect(throws: CapabilityConfigurationError.self) {
            try HostReachability(host: "db", port: 80, timeout: .zero)
        }
        #expect(try HostReachability(host: "[::1]", port: 80).name == "host:[::1]:80")
    }

    @Test("a listening port is reachable, by address and by name")
    func listening() async throws {
        let listener = try LoopbackSocket(listening: 16)
        // A limit far above what loopback needs: under the whole suite's load the default 3 s
        // was once spent before the name was looked up, and this test is not about the limit.
        let limit = Duration.seconds(60)
        let byAddress = await (try HostReachability(host: "127.0.0.1", port: listener.port, timeout: limit))
            .resolveStatus()
        #expect(byAddress.kind == .authorized)
        #expect(byAddress.reason.hasPrefix("reachable: connected to 127.0.0.1:\(listener.port)"))
        let byName = await (try HostReachability(host: "localhost", port: listener.port, timeout: limit))
            .resolveStatus()
        #expect(byName.kind == .authorized, "\(byName)")
    }

    @Test("a closed port is refused: the host is up, the service is not")
    func refused() async throws {
        let port = try LoopbackSocket(listening: nil).port  // bound, then closed: nothing listens
        let status = await (try HostReachability(host: "127.0.0.1", port: port)).resolveStatus()
        #expect(status.kind == .denied)
        #expect(status.cause == .connectionRefused)
        #expect(status.reason.hasPrefix("refused: 127.0.0.1:\(port) answered"))
    }

    @Test("a service that never answers times out")
    func timesOut() async throws {
        // A listener whose accept queue is full drops further SYNs, so a connect gets no answer.
        let listener = try LoopbackSocket(listening: 0)
        let clients = [listener.connectClient()]
        defer { for client in clients { close(client) } }
        let status = await (try HostReachability(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(300)))
            .resolveStatus()
        #expect(status.kind == .denied)
        #expect(status.cause == .timedOut)
        #expect(status.reason.hasPrefix("timed out"), "\(status)")
    }

    @Test("a name that does not resolve is denied: the host is not found")
    func dnsFailure() async throws {
        let status = await (try HostReachability(host: "no-such-host.invalid", port: 443, timeout: .seconds(5)))
            .resolveStatus()
        #expect(status.kind == .denied)
        #expect(status.cause == .hostNotFound)
        #expect(status.reason.hasPrefix("DNS failure"), "\(status)")
    }

    @Test(
        "no name server answering decides nothing: refused at once (EAI_AGAIN) or silent past the timeout",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and ip netns"))
    func nameServerDown() throws {
        // Nothing listens on the namespace's loopback: the resolver's queries are refused.
        let refusing = try NetworkNamespace()
        try refusing.inside(["link", "set", "lo", "up"])
        try refusing.useResolvConf("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")
        let refused = try Probe.status(["host", "db.example.com", "5432", "5000"], via: refusing.exec)
        #expect(refused.kind == .unavailable, "\(refused)")
        #expect(refused.cause == .backendUnreachable)
        #expect(refused.reason.contains("no name server answered"), "\(refused)")

        // Queries into a veth link whose far end has no address vanish (a fixed neighbour entry, so
        // not even ARP answers): the resolver would wait 30 s, the check ends at its own timeout.
        let silent = try NetworkNamespace()
        try silent.inside(["link", "add", "v0", "type", "veth", "peer", "name", "v1"])
        try silent.inside(["addr", "add", "10.9.9.1/24", "dev", "v0"])
        try silent.inside(["link", "set", "v1", "up"])
        try silent.inside(["link", "set", "v0", "up"])
        try silent.inside(["neigh", "add", "10.9.9.53", "lladdr", "02:00:00:00:00:35", "dev", "v0", "nud", "permanent"])
        try silent.useResolvConf("nameserver 10.9.9.53\noptions attempts:1 timeout:30\n")
        let unanswered = try Probe.status(["host", "db.example.com", "5432", "300"], via: silent.exec)
        #expect(unanswered.kind == .unavailable, "\(unanswered)")
        #expect(unanswered.cause == .backendUnreachable)
        #expect(unanswered.reason.contains("within"), "\(unanswered)")
    }

    @Test("the path status agrees with the kernel's default route as iproute2 reports it")
    func pathHere() async throws {
        let routes = try runProcess("/usr/sbin/ip", ["route", "show", "default"]).standardOutput
        let status = await NetworkPath().resolveStatus()
        #expect(status.kind == (routes.contains("default") ? .authorized : .denied), "\(status)")
    }

    @Test(
        "in a namespace with only loopback: unsatisfied, and no route to any host",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and ip netns"))
    func isolatedNamespace() throws {
        let namespace = try NetworkNamespace()
        try namespace.inside(["link", "set", "lo", "up"])
        let path = try Probe.status(["path"], via: namespace.exec)
        #expect(path.kind == .denied)
        #expect(path.reason.hasPrefix("unsatisfied: no usable interface"))
        let host = try Probe.status(["host", "192.0.2.1", "80", "2000"], via: namespace.exec)
        #expect(host.kind == .denied)
        #expect(host.cause == .noRoute)
        #expect(host.reason.hasPrefix("no route"), "\(host)")
    }

    @Test(
        "a link, address and default route appearing are seen through rtnetlink",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and ip netns"))
    func changesAreObserved() async throws {
        let namespace = try NetworkNamespace()
        let watcher = try StreamingProcess(namespace.exec + [Probe.executable, "watch-path"])
        let first = try #require(await watcher.nextLine())
        #expect(first.hasPrefix("denied\t"), "\(first)")

        try namespace.inside(["link", "add", "v0", "type", "veth", "peer", "name", "v1"])
        try namespace.inside(["addr", "add", "10.9.0.2/24", "dev", "v0"])
        try namespace.inside(["link", "set", "v1", "up"])
        try namespace.inside(["link", "set", "v0", "up"])
        try namespace.inside(["route", "add", "default", "via", "10.9.0.1", "dev", "v0"])

        var last = first
        while let line = await watcher.nextLine() { last = line }
        #expect(last.hasPrefix("authorized\t"), "\(last); the probe said: \(watcher.errorText())")
        #expect(last.contains("default route via v0"))
        #expect(watcher.waitUntilExit() == 0)
    }
}
