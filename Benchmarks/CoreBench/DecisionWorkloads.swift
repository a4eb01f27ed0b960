import DecisionService
import Dispatch
import Foundation
import Glibc
import LinuxBackends
import TestSupport

/// A decision asked of a daemon over its own protocol, from one client program: capctld
/// (varlink on its Unix socket) beside polkitd (`CheckAuthorization` over D-Bus, on a bus of its
/// own), each on a connection kept open; then `capctl check` through capctld beside `capctl check`
/// deciding in-process, as new processes.
enum DecisionWorkloads {
    /// The gates capctld decides: a group, as polkit's rule below asks (`subject.isInGroup`), and
    /// StartupWorkloads' three requirements (a group, a directory's access as the client, a Linux
    /// capability of the client).
    static let policy =
        StartupWorkloads.policy + """

              operators:
                description: Operate the service
                require: operator

            """
    static let gate = "operators"
    static let threeRequirements = "maintenance"
    static let action = "org.example.bench.operate"
    static let rules = """
        polkit.addRule(function(action, subject) {
            if (action.id == "\(action)" && subject.isInGroup("root")) { return polkit.Result.YES; }
        });
        """

    /// `core-bench --echo-server PATH`: sends back whatever its one client sends, for the round
    /// trip of a Unix socket between two processes, the floor under any daemon's answer.
    static func echoServer(at path: String) -> Never {
        unlink(path)
        let listening = unixSocket(path, listen: true)
        guard listening >= 0 else { exit(2) }
        print("echo: listening on \(path)")
        fflush(nil)
        let client = accept(listening, nil, nil)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { exit(0) }
            _ = write(client, buffer, count)
        }
    }

    /// `core-bench --datagram-sink PATH`: receives and drops datagrams (capctld's audit records),
    /// in a process of its own, as journald would.
    static func datagramSink(at path: String) -> Never {
        unlink(path)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { exit(2) }
        print("sink: receiving on \(path)")
        fflush(nil)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true { _ = recv(descriptor, &buffer, buffer.count, 0) }
    }

    /// A Unix stream socket listening at `path`, or connected to it; -1 on failure.
    static func unixSocket(_ path: String, listen listens: Bool) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return -1 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                listens ? bind(descriptor, $0, length) : connect(descriptor, $0, length)
            }
        }
        guard result == 0, !listens || listen(descriptor, 4) == 0 else { return -1 }
        return descriptor
    }

    /// The round trip of `message` (NUL-ended) on the connected socket `descriptor` and of its
    /// reply (read up to its NUL), `count` times, with nothing but the two system calls on this side.
    static func rawTimes(on descriptor: Int32, message: [UInt8], count: Int) -> [Double] {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        return timeEach(count) {
            _ = write(descriptor, message, message.count)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count <= 0 || buffer[count - 1] == 0 { return }
            }
        }
    }

    /// The wall time of each of `count` calls of `call`, in seconds.
    static func timeEach(_ count: Int, _ call: () -> Void) -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            let start = DispatchTime.now().uptimeNanoseconds
            call()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times
    }

    /// Calls per second when `clients` threads each make `count` calls on a connection of their
    /// own (`connect` makes one, `call` uses it).
    static func throughput<Connection>(
        clients: Int, count: Int, connect: () -> Connection, call: @escaping @Sendable (Connection) -> Void
    ) -> Double {
        let connections = (0..<clients).map { _ in UncheckedBox(connect()) }
        let start = DispatchTime.now().uptimeNanoseconds
        onThreads(clients) { index in
            for _ in 0..<count { call(connections[index].value) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Double(clients * count) / seconds
    }

    /// The wall time of every call when `clients` threads each make `count` calls on a connection
    /// of their own, in seconds: the spread a client sees while others ask too.
    static func latencies<Connection>(
        clients: Int, count: Int, connect: () -> Connection, call: @escaping @Sendable (Connection) -> Void
    ) -> [Double] {
        let connections = (0..<clients).map { _ in UncheckedBox(connect()) }
        let times = (0..<clients).map { _ in UncheckedBox(MutableTimes()) }
        onThreads(clients) { index in
            let connection = connections[index].value
            times[index].value.seconds = timeEach(count) { call(connection) }
        }
        return times.flatMap { $0.value.seconds }
    }

    /// Runs `body(0..<count)` each on a thread of its own, all at once, and waits for them: the
    /// clients of a row. Not `concurrentPerform`, which runs its iterations on as many threads as
    /// there are processors (two here), so "8 clients" were two at a time, each waiting in turn.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchSemaphore(value: 0)
        for index in 0..<count {
            let thread = Thread {
                body(index)
                done.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<count { done.wait() }
    }

    /// One thread's times, filled by that thread alone.
    final class MutableTimes: @unchecked Sendable {
        var seconds: [Double] = []
    }

    /// A value handed to one client's thread (each thread uses its own).
    final class UncheckedBox<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}

extension CoreBench {
    /// capctld against polkitd, and capctl through capctld against capctl in-process.
    static func decisions(_ report: inout Report, calls: Int, starts: Int) async {
        let folder =
            CommandLine.arguments.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? "."
        let environment = ProcessInfo.processInfo.environment
        let capctld = environment["CAPCTLD"] ?? folder + "/capctld"
        let capctl = environment["CAPCTL"] ?? folder + "/capctl"
        guard FileManager.default.isExecutableFile(atPath: capctld),
            FileManager.default.isExecutableFile(atPath: capctl)
        else {
            print(
                "core-bench --decisions: no capctld or capctl next to core-bench (swift build -c release --product capctld --product capctl, or set CAPCTLD and CAPCTL)"
            )
            exit(2)
        }
        let directory = try! TemporaryDirectory(prefix: "core-bench-decisions")
        // Other users' client processes reach the socket in it.
        chmod(directory.path, 0o755)
        try! directory.write(DecisionWorkloads.policy, to: "root/policy.yaml")
        let socket = directory.path + "/capctld.sock"
        // Every decision is recorded, as capctld records them by default (polkitd records none),
        // to a process of its own, as journald is.
        let auditPath = directory.path + "/audit.sock"
        let audit = try! DaemonProcess(
            [CommandLine.arguments[0], "--datagram-sink", auditPath], environment: ["PATH": "/usr/bin:/bin"])
        defer { audit.stop() }
        _ = await audit.nextLine()
        // capctld at the priority its unit gives it, as the package runs it (polkitd's unit sets none).
        let nice = DecisionWorkloads.unitNice()
        let daemon = try! DaemonProcess(
            (nice.map { ["/usr/bin/nice", "-n", String($0)] } ?? []) + [
                capctld, "--policy-roots", directory.path + "/root", "--listen", socket, "--audit-socket", auditPath,
                // The idle connections' row holds 10,000 for a while before it measures them.
                "--idle-timeout", "120",
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        defer { daemon.stop() }
        // It says what it loaded, then that it listens.
        var listening = false
        for _ in 0..<5 where !listening {
            listening = await daemon.nextLine() == "capctld: listening on \(socket)"
        }
        guard listening else {
            print("core-bench --decisions: capctld did not start")
            exit(2)
        }
        report.line(
            "capctld's nice value (capctld.service: \(nice.map { "Nice=\($0)" } ?? "none read"))",
            DecisionWorkloads.niceValue(daemon.pid).map(String.init) ?? "unknown")
        let client = try! DecisionClient(path: socket)
        precondition((try? client.check(DecisionWorkloads.gate).holds) == true, "the gate does not hold here")
        precondition((try? client.check(DecisionWorkloads.threeRequirements).holds) == true, "nor does this one")
        // The floor: the same socket round trip to a process that only echoes.
        let echoPath = directory.path + "/echo.sock"
        let echo = try! DaemonProcess(
            [CommandLine.arguments[0], "--echo-server", echoPath], environment: ["PATH": "/usr/bin:/bin"])
        defer { echo.stop() }
        _ = await echo.nextLine()
        let callMessage = Array(#"{"method":"org.capctl.gates.Check","parameters":{"gate":"operators"}}"#.utf8) + [0]

        var polkit: PolkitFixture?
        var polkitClient: PolkitCheckConnection?
        if PolkitFixture.isAvailable {
            polkit = try? await PolkitFixture(
                actions: [DecisionWorkloads.action: "Operate the service"], rules: DecisionWorkloads.rules)
            if let polkit {
                // sd-bus's system bus is the fixture's for this process from here on.
                setenv("DBUS_SYSTEM_BUS_ADDRESS", polkit.busAddress, 1)
                polkitClient = try? PolkitCheckConnection()
                if (try? polkitClient?.isAuthorized(DecisionWorkloads.action)) != true { polkitClient = nil }
            }
        }

        // Latency in paired rounds: each round measures the floor (an echo process's round trip)
        // and each row back to back on connections kept open, and a row is the median of its
        // rounds' own medians above that round's floor, so drift between rounds (two cores shared
        // with everything else) touches the row and its floor alike.
        let echoConnection = DecisionWorkloads.unixSocket(echoPath, listen: false)
        let rawConnection = DecisionWorkloads.unixSocket(socket, listen: false)
        precondition(echoConnection >= 0 && rawConnection >= 0, "cannot reach the echo process or capctld")
        defer {
            close(echoConnection)
            close(rawConnection)
        }
        let median = StartupWorkloads.median
        let block = 1000
        let rounds = max(5, calls / block)
        // On one core, this thread, capctld and the echo process: a single client's call otherwise
        // waits on where the scheduler wakes the other side (on this VM a wake-up on the other core
        // added 50 us to a whole block of calls, to whichever row came first after the echo, so rows
        // swapped places with the order). Pinned, the floor is a same-core round trip and a row
        // above it is the work. The loop below has no suspension point: this thread stays put.
        let pinned = CorePlacement.isAvailable && CorePlacement.move([daemon.pid, echo.pid], andThisThreadTo: "0")
        var floors: [Double] = []
        var groupAbove: [Double] = []
        var rawAbove: [Double] = []
        var threeAbove: [Double] = []
        var polkitAbove: [Double] = []
        for _ in 0..<rounds {
            let floor = median(DecisionWorkloads.rawTimes(on: echoConnection, message: callMessage, count: block))
            floors.append(floor)
            groupAbove.append(
                median(DecisionWorkloads.timeEach(block) { _ = try? client.check(DecisionWorkloads.gate) }) - floor)
            rawAbove.append(
                median(DecisionWorkloads.rawTimes(on: rawConnection, message: callMessage, count: block)) - floor)
            threeAbove.append(
                median(
                    DecisionWorkloads.timeEach(block / 10) {
                        _ = try? client.check(DecisionWorkloads.threeRequirements)
                    }) - floor)
            if let polkitClient {
                polkitAbove.append(
                    median(
                        DecisionWorkloads.timeEach(block / 10) {
                            _ = try? polkitClient.isAuthorized(DecisionWorkloads.action)
                        }) - floor)
            }
        }
        if pinned {
            precondition(
                CorePlacement.giveBackAllCores([daemon.pid, echo.pid]),
                "cannot give the cores back")
        }
        let micro = { (value: Double) in String(format: "%7.1f µs", value * 1e6) }
        report.section(
            "a decision asked of a daemon on an open connection (\(rounds) paired rounds of \(block) calls;"
                + " medians above each round's floor\(pinned ? "; client, capctld and echo on core 0" : ""))")
        report.line("the floor: a round trip to an echo process", micro(median(floors)))
        if !polkitAbove.isEmpty {
            report.line("polkitd CheckAuthorization (D-Bus, private bus), above the floor", micro(median(polkitAbove)))
        } else {
            report.line("polkitd CheckAuthorization", "not measured (needs root, polkitd and dbus-daemon)")
        }
        report.bound(
            "capctld Check, a group, DecisionClient, µs above the floor", median(groupAbove) * 1e6, target: 15,
            row: "capctld group gate, DecisionClient, us above an echo")
        report.bound(
            "capctld Check, a group, minimal client, µs above the floor", median(rawAbove) * 1e6, target: 10,
            row: "capctld group gate, minimal client, us above an echo")
        report.bound(
            "capctld Check, three requirements, µs above the floor", median(threeAbove) * 1e6, target: 40,
            row: "capctld three requirements, us above an echo")

        // The spread under load: eight clients asking in a loop, every call's time. In five
        // rounds, each with its own ratio, and the median of those judged: one round that
        // something else on the two cores disturbed moved a single pooled p99 by half. A round is
        // 2,000 calls a client (about 160 ms): at 500 (40 ms) its p99 was one scheduler event's,
        // one round in twenty 8-12x where the rest were 2.5-3x; at 2,000 the same medians, no
        // such round in twenty (`core-bench --group-gate-spread SOCKET 10 2000`).
        var loaded: [Double] = []
        var spreads: [Double] = []
        for _ in 0..<5 {
            let round = DecisionWorkloads.spreadRound(socket, calls: max(200, calls / 50))
            spreads.append(round[round.count * 99 / 100] / median(round))
            loaded += round
        }
        loaded.sort()
        let p99 = loaded[loaded.count * 99 / 100]
        report.line("8 clients: median, p99 of every call", micro(median(loaded)) + " " + micro(p99))
        report.line(
            "8 clients: p99 / median, each round",
            spreads.map { String(format: "%.2fx", $0) }.joined(separator: " ")
                + String(format: " (all calls: %.2fx)", p99 / median(loaded)))
        report.ratio(
            "8 clients: p99 / median (median of rounds)", median(spreads), target: 4, atLeast: false,
            row: "capctld group gate, 8 clients, p99 / median")

        // Decisions per second under load: eight clients at once, as many as either daemon can
        // keep busy on two cores (polkitd decides on one thread, capctld on each client's). The
        // best of three rounds each, taken in turns: two cores shared with everything else vary.
        let clients = 8
        var capctldRate = 0.0
        var polkitRate = 0.0
        for _ in 0..<3 {
            capctldRate = max(capctldRate, DecisionWorkloads.groupGateRate(socket, clients: clients, calls: calls / 2))
            if polkitClient != nil {
                polkitRate = max(
                    polkitRate,
                    DecisionWorkloads.throughput(
                        clients: clients, count: max(50, calls / 80 / clients),
                        connect: { try! PolkitCheckConnection() },
                        call: { _ = try? $0.isAuthorized(DecisionWorkloads.action) }))
            }
        }
        report.line(
            "capctld: decisions per second, \(clients) clients (best of 3)", String(format: "%9.0f", capctldRate))
        if polkitClient != nil {
            report.line(
                "polkitd: decisions per second, \(clients) clients (best of 3)", String(format: "%9.0f", polkitRate))
            report.ratio(
                "capctld / polkitd decisions per second", capctldRate / polkitRate, target: 30, atLeast: true,
                row: "capctld / polkitd decisions/s, 8 clients")
        }
        withExtendedLifetime(polkit) {}

        // Many clients at once: 1,000 connections of 50 users, each asking in a loop, from 50
        // processes (one per user) that start together and ask for the same time.
        let users = 50
        let perUser = 20
        let seconds = calls < 100_000 ? 2.0 : 4.0
        let askers = await DecisionWorkloads.clientProcesses(
            socket, (0..<users).map { (20_000 + $0, perUser, String(seconds)) })
        // capctld's share of the two cores during the row: whether a slow run was capctld
        // working slowly or capctld waiting for a core beside fifty busy clients.
        let cpuBefore = DecisionWorkloads.cpuSeconds(daemon.pid)
        for asker in askers { kill(asker.pid, SIGUSR1) }
        var answers: [Int] = []
        var medians: [Double] = []
        var largest = 0.0
        for asker in askers {
            guard let line = await asker.nextLine(), let said = DecisionWorkloads.clientsReport(line) else {
                preconditionFailure("a client process did not report")
            }
            answers += said.answers
            medians.append(said.median)
            largest = max(largest, said.largest)
            asker.stop()
        }
        let cpuDuring = DecisionWorkloads.cpuSeconds(daemon.pid) - cpuBefore
        answers.sort()
        let manyRate = Double(answers.reduce(0, +)) / seconds
        let medianCall = median(medians.map { $0 / 1e6 })
        report.line(
            "1,000 connections of 50 users: decisions per second", String(format: "%9.0f", manyRate))
        report.line(
            "1,000 connections: answers per connection, fewest / median / most",
            "\(answers.first ?? 0) / \(answers[answers.count / 2]) / \(answers.last ?? 0)")
        report.line("1,000 connections: a call's median, largest", micro(medianCall) + " " + micro(largest / 1e6))
        report.line(
            "1,000 connections: capctld CPU, per decision",
            String(
                format: "%.2f s of %.0f s, %.1f µs", cpuDuring, seconds,
                cpuDuring / Double(max(1, answers.reduce(0, +))) * 1e6))
        report.ratio(
            "1,000 connections / 8 clients, decisions per second", manyRate / capctldRate, target: 0.8, atLeast: true,
            row: "capctld decisions/s, 1,000 connections / 8 clients")
        report.ratio(
            "1,000 connections: largest call / median call", largest / 1e6 / medianCall, target: 10, atLeast: false,
            row: "capctld 1,000 connections, slowest call / median")

        // Abuse beside eight well-behaved clients: 1,000 silent connections of 20 users, 40 watches
        // of 10 users that never read, one user opening 200 connections (64 are admitted), and
        // 256 connections of 4 users sending calls until their sockets are full and reading no
        // reply (a reply waited on would hold a serving thread each).
        var abuse: [(uid: Int, connections: Int, mode: String)] = []
        for user in 0..<20 { abuse.append((40_000 + user, 50, "0")) }
        for user in 0..<10 { abuse.append((41_000 + user, 4, "-1")) }
        abuse.append((42_000, 200, "0"))
        for user in 0..<4 { abuse.append((43_000 + user, 64, "-2")) }
        let abusers = await DecisionWorkloads.clientProcesses(socket, abuse)
        var abusedRate = 0.0
        for _ in 0..<3 {
            abusedRate = max(abusedRate, DecisionWorkloads.groupGateRate(socket, clients: clients, calls: calls / 2))
        }
        for abuser in abusers { abuser.stop() }
        report.line(
            "8 clients beside silent clients, unread watches, one user's 200 connections, unread calls (best of 3)",
            String(format: "%9.0f", abusedRate))
        report.ratio(
            "8 clients under abuse / alone, decisions per second", abusedRate / capctldRate, target: 0.5,
            atLeast: true, row: "capctld 8 clients under abuse / alone")

        // Idle connections: 10,000 from 200 users (50 each, within the 64 a user may hold), asking
        // nothing; capctld's resident memory before and after, per connection.
        let idleUsers = calls < 100_000 ? 40 : 200
        let idlePerUser = 50
        // The thousand connections above are closed by now, but capctld may still be ending them:
        // the count it starts from is the one that stays put for 200 ms.
        var descriptorsBefore = DecisionWorkloads.openDescriptors(daemon.pid)
        for _ in 0..<100 {
            try? await Task.sleep(for: .milliseconds(200))
            let now = DecisionWorkloads.openDescriptors(daemon.pid)
            if now == descriptorsBefore { break }
            descriptorsBefore = now
        }
        let residentBefore = DecisionWorkloads.residentBytes(daemon.pid)
        let holders = await DecisionWorkloads.clientProcesses(
            socket, (0..<idleUsers).map { (30_000 + $0, idlePerUser, "0") })
        // Connected is not yet accepted (the backlog holds them): wait until capctld holds a
        // descriptor for each, or 30 s, and measure what it holds then.
        let expected = idleUsers * idlePerUser
        let acceptDeadline = ContinuousClock.now + .seconds(30)
        var held = 0
        while ContinuousClock.now < acceptDeadline {
            held = DecisionWorkloads.openDescriptors(daemon.pid) - descriptorsBefore
            if held >= expected { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let residentAfter = DecisionWorkloads.residentBytes(daemon.pid)
        for holder in holders { holder.stop() }
        let perConnection = Double(residentAfter - residentBefore) / Double(max(1, held))
        report.line(
            "idle connections held by capctld (of \(idleUsers * idlePerUser))", "\(held)")
        report.bound(
            "capctld memory per idle connection, KiB", perConnection / 1024, target: 64,
            row: "capctld memory per idle connection, KiB")

        // capctl as a new process: asking capctld, or deciding in-process from the same files. Each
        // build is started from an installed copy (as --startup starts it), beside the least a Swift
        // program linked the same way starts in: a process start bounds this row from below.
        let through = [
            "PATH": "/usr/bin:/bin", "NO_COLOR": "1", "CAPCTL_DAEMON_SOCKET": socket,
        ]
        let inProcess = [
            "PATH": "/usr/bin:/bin", "NO_COLOR": "1", "CAPCTL_DAEMON_SOCKET": "",
            "CAPCTL_POLICY_ROOTS": directory.path + "/root",
        ]
        struct Build {
            let label: String
            let check: [String]
            let floor: Result<String, StartupWorkloads.FloorUnavailable>
            var through: [Double] = []
            var inProcess: [Double] = []
            var floorTimes: [Double] = []
        }
        func build(_ label: String, _ path: String, as name: String, staticStdlib: Bool) -> Build {
            let copy = StartupWorkloads.installedCopy(of: path, as: name, in: directory.path)
            return Build(
                label: label, check: [copy, "check", DecisionWorkloads.gate, "--non-interactive"],
                floor: StartupWorkloads.swiftFloor(in: directory.path, staticStdlib: staticStdlib))
        }
        // The row is judged on the released layout, what the .deb installs and what the startup
        // rows are judged on: its front asks capctld without the Swift runtime (Docs/Performance.md,
        // "Tenth session"). The build next to core-bench, one executable, is measured beside it;
        // without a released layout it is the one judged.
        var builds = [build("swift build", capctl, as: "capctl", staticStdlib: false)]
        let released = environment["CAPCTL_RELEASED"] ?? StartupWorkloads.released
        if FileManager.default.isExecutableFile(atPath: released) {
            builds.insert(build("released layout", released, as: "capctl-released", staticStdlib: true), at: 0)
        }
        for build in builds {
            precondition(
                StartupWorkloads.spawn(build.check, environment: through).status == 0, "capctl through capctld")
            precondition(StartupWorkloads.spawn(build.check, environment: inProcess).status == 0, "capctl in-process")
        }
        for _ in 0..<starts {
            for index in builds.indices {
                builds[index].through.append(StartupWorkloads.spawn(builds[index].check, environment: through).seconds)
                builds[index].inProcess.append(
                    StartupWorkloads.spawn(builds[index].check, environment: inProcess).seconds)
                if case .success(let floor) = builds[index].floor {
                    builds[index].floorTimes.append(StartupWorkloads.spawn([floor], environment: through).seconds)
                }
            }
        }
        report.section("capctl check as a new process (median of \(starts) starts)")
        if builds.count == 1 {
            report.line(
                "released layout", "not built (Scripts/build-release-capctl): the build next to core-bench is judged")
        }
        for (index, build) in builds.enumerated() {
            let throughMedian = median(build.through)
            let inProcessMedian = median(build.inProcess)
            report.line("capctl check in-process (\(build.label))", String(format: "%6.2f ms", inProcessMedian * 1e3))
            report.line(
                "capctl check through capctld (\(build.label))",
                String(
                    format: "%6.2f ms (0.8x in-process is %.2f ms)", throughMedian * 1e3, 0.8 * inProcessMedian * 1e3))
            switch build.floor {
            case .success:
                report.line(
                    "a Swift program printing a line (\(build.label))",
                    String(format: "%6.2f ms", median(build.floorTimes) * 1e3))
            case .failure(let unavailable):
                report.line("a Swift program printing a line (\(build.label))", "not measured: \(unavailable.reason)")
            }
            let judged = index == 0
            report.ratio(
                "through capctld / in-process (\(build.label))", throughMedian / inProcessMedian,
                target: judged ? 0.8 : nil, atLeast: false,
                row: judged ? "capctl check through capctld / in-process" : nil)
        }
    }
}

extension DecisionWorkloads {
    /// `core-bench --decision-clients SOCKET UID CONNECTIONS SECONDS`: as user UID (no groups),
    /// opens CONNECTIONS connections to capctld and says `ready`; at SIGUSR1 asks Check on every one
    /// in a loop (one call outstanding on each) for SECONDS, then prints each connection's count of
    /// answers and the median and largest time of a call, in µs. With SECONDS 0 it only holds the
    /// connections, idle, until it is killed; with SECONDS -1 it opens a watch on each and never
    /// reads its replies; with SECONDS -2 it sends Check calls on each until its socket takes no
    /// more, and reads none of their replies.
    static func decisionClients(socket path: String, uid: UInt32, connections count: Int, seconds: Double) -> Never {
        var start = sigset_t()
        sigemptyset(&start)
        sigaddset(&start, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &start, nil)
        // As root, setgid and setuid set the real, effective and saved ids alike.
        guard setgroups(0, nil) == 0, setgid(uid) == 0, setuid(uid) == 0 else { exit(3) }
        let descriptors = (0..<count).map { _ in unixSocket(path, listen: false) }
        guard descriptors.allSatisfy({ $0 >= 0 }) else { exit(4) }
        if seconds < -1.5 {
            // Calls until capctld's end of each socket is full, whose replies are never read.
            let call = Array(#"{"method":"org.capctl.gates.Check","parameters":{"gate":"operators"}}"#.utf8) + [0]
            let calls = Array(Array(repeating: call, count: 1000).joined())
            for descriptor in descriptors {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                while write(descriptor, calls, calls.count) > 0 {}
            }
            // Ready once capctld has answered what fits on each (the replies waiting to be read
            // stay put for 100 ms): the row measures the state it leaves them in (their replies
            // kept, the connections waiting), not the answering, which is any client's share.
            var waiting = -1
            for _ in 0..<300 {
                var now = 0
                for descriptor in descriptors {
                    var bytes: Int32 = 0
                    _ = ioctl(descriptor, UInt(FIONREAD), &bytes)
                    now += bytes > 0 ? Int(bytes) : -1_000_000
                }
                if now == waiting, now > 0 { break }
                waiting = now
                usleep(100_000)
            }
        } else if seconds < 0 {
            // A watch on each, whose replies are never read.
            let watch = Array(
                #"{"method":"org.capctl.gates.Watch","parameters":{"gate":"operators"},"more":true}"#.utf8)
            for descriptor in descriptors { _ = write(descriptor, watch + [0], watch.count + 1) }
        }
        print("ready")
        fflush(nil)
        guard seconds > 0 else {
            while true { pause() }
        }
        var signal: Int32 = 0
        sigwait(&start, &signal)
        let message = Array(#"{"method":"org.capctl.gates.Check","parameters":{"gate":"operators"}}"#.utf8) + [0]
        var answers = [Int](repeating: 0, count: count)
        var asked = [UInt64](repeating: 0, count: count)
        var times: [Double] = []
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let now = { DispatchTime.now().uptimeNanoseconds }
        let end = now() + UInt64(seconds * 1e9)
        for index in 0..<count {
            asked[index] = now()
            _ = write(descriptors[index], message, message.count)
        }
        while now() < end {
            guard poll(&entries, nfds_t(count), 100) > 0 else { continue }
            for index in 0..<count where entries[index].revents != 0 {
                let read = Glibc.read(descriptors[index], &buffer, buffer.count)
                // A Busy refusal or a closed connection: that connection is done.
                guard read > 0 else {
                    entries[index].fd = -1
                    continue
                }
                guard buffer[read - 1] == 0 else { continue }
                answers[index] += 1
                let finished = now()
                times.append(Double(finished - asked[index]) / 1e3)
                asked[index] = finished
                _ = write(descriptors[index], message, message.count)
            }
        }
        times.sort()
        print(
            "answers " + answers.map(String.init).joined(separator: ",") + " median "
                + String(times.isEmpty ? 0 : times[times.count / 2]) + " max " + String(times.last ?? 0))
        fflush(nil)
        exit(0)
    }

    /// `--decision-clients` processes, one per entry (its user, its connections, its SECONDS:
    /// how long it asks, 0 to hold them idle, -1 to watch unread, -2 to send calls and read no
    /// reply), once each has connected.
    static func clientProcesses(
        _ socket: String, _ users: [(uid: Int, connections: Int, mode: String)]
    ) async -> [DaemonProcess] {
        var started: [DaemonProcess] = []
        for (uid, connections, mode) in users {
            started.append(
                try! DaemonProcess(
                    [
                        CommandLine.arguments[0], "--decision-clients", socket, String(uid), String(connections), mode,
                    ],
                    environment: ["PATH": "/usr/bin:/bin"]))
        }
        for process in started {
            let said = await process.nextLine()
            precondition(said == "ready", "a client process did not connect")
        }
        return started
    }

    /// Group-gate decisions per second with `clients` DecisionClients making `calls` in all.
    static func groupGateRate(_ socket: String, clients: Int, calls: Int) -> Double {
        throughput(
            clients: clients, count: calls / clients, connect: { try! DecisionClient(path: socket) },
            call: { _ = try? $0.check(gate) })
    }

    /// `--group-gate-spread`: eight clients' calls in `rounds` rounds of 500 each, each round's
    /// median, p99, p99 / median and largest call printed, then the median of the rounds' ratios.
    static func groupGateSpread(_ socket: String, rounds: Int, calls: Int = 500) {
        var spreads: [Double] = []
        for round in 0..<rounds {
            let times = spreadRound(socket, calls: calls)
            let p99 = times[times.count * 99 / 100]
            spreads.append(p99 / StartupWorkloads.median(times))
            print(
                String(
                    format: "round %d: median %.1f us, p99 %.1f us, p99 / median %.2fx, largest %.1f us", round,
                    StartupWorkloads.median(times) * 1e6, p99 * 1e6, p99 / StartupWorkloads.median(times),
                    (times.last ?? 0) * 1e6))
        }
        print(String(format: "p99 / median, median of rounds: %.2fx", StartupWorkloads.median(spreads)))
    }

    /// One round of the 8-client spread: eight DecisionClients asking the group gate `calls`
    /// times each, every call's time, sorted.
    static func spreadRound(_ socket: String, calls: Int) -> [Double] {
        latencies(
            clients: 8, count: calls, connect: { try! DecisionClient(path: socket) }, call: { _ = try? $0.check(gate) }
        ).sorted()
    }

    /// What one `--decision-clients` process said: each connection's answers, the median and
    /// largest call time in µs.
    static func clientsReport(_ line: String) -> (answers: [Int], median: Double, largest: Double)? {
        let words = line.split(separator: " ")
        guard words.count == 6, words[0] == "answers", let median = Double(words[3]), let largest = Double(words[5])
        else { return nil }
        return (words[1].split(separator: ",").compactMap { Int($0) }, median, largest)
    }

    /// The `Nice=` of Packaging/systemd/capctld.service (core-bench runs from the package's
    /// directory), or nil when it has none or cannot be read.
    static func unitNice() -> Int? {
        guard let unit = try? String(contentsOfFile: "Packaging/systemd/capctld.service", encoding: .utf8) else {
            return nil
        }
        return unit.split(separator: "\n").first { $0.hasPrefix("Nice=") }.flatMap { Int($0.dropFirst(5)) }
    }

    /// The nice value of process `pid`'s first thread (/proc/PID/stat), or nil.
    static func niceValue(_ pid: Int32) -> Int? { statFields(pid).flatMap { Int($0[16]) } }

    /// The CPU time process `pid` has used, user and system, in seconds (/proc/PID/stat).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let fields = statFields(pid), let user = Double(fields[11]), let system = Double(fields[12]) else {
            return 0
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The fields of /proc/PID/stat after the name, from the state (field 3) on; nil when it
    /// cannot be read or is short.
    private static func statFields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 17
        else { return nil }
        return fields
    }

    /// The resident memory of process `pid`, in bytes (VmRSS).
    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// The descriptors process `pid` holds open.
    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}
