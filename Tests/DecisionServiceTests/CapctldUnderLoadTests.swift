import CapabilityPolicy
import DecisionService
import Dispatch
import Foundation
import Glibc
import Locking
import TestSupport
import Testing

/// capctld while clients keep asking: reloads (SIGHUP and file changes) and SIGTERM land among
/// their calls. Clients are the package's own `DecisionClient`, on threads of their own, as root.
@Suite("capctld under load", .serialized, .enabled(if: geteuid() == 0, "needs root"), .timeLimit(.minutes(2)))
struct CapctldUnderLoadTests {
    /// Two versions of one gate: which one decided shows in the description.
    static func policy(_ version: Int) -> String {
        """
        capabilities:
          is-root: { kind: user, user: root }
        gates:
          root-only: { require: \(version == 1 ? "is-root" : "{ not: is-root }"), description: Version \(version) }
        """
    }

    /// `clients` threads, each asking `gate` until `stop` opens (or its connection fails), and
    /// what each got: decisions, then at most one failure.
    static func asking(
        _ socket: String, gate: String, clients: Int, until stop: Latch
    ) async -> [(decisions: [Decision], failure: DecisionClient.Failure?)] {
        await withTaskGroup(of: ([Decision], DecisionClient.Failure?).self) { group in
            for _ in 0..<clients {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread.detachNewThread {
                            var decisions: [Decision] = []
                            do throws(DecisionClient.Failure) {
                                let client = try DecisionClient(path: socket)
                                while !stop.isOpen {
                                    decisions.append(try client.check(gate))
                                }
                                continuation.resume(returning: (decisions, nil))
                            } catch {
                                continuation.resume(returning: (decisions, error))
                            }
                        }
                    }
                }
            }
            var results: [(decisions: [Decision], failure: DecisionClient.Failure?)] = []
            for await result in group { results.append(result) }
            return results
        }
    }

    /// The lines of Packaging/systemd/capctld.service.
    static func unit() throws -> [Substring] {
        try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
                + "/../../Packaging/systemd/capctld.service", encoding: .utf8
        ).split(separator: "\n")
    }

    /// The value of the unit's `key=` line, if it has one.
    static func setting(_ key: String, in unit: [Substring]) -> Substring? {
        unit.first { $0.hasPrefix(key + "=") }.map { $0.dropFirst(key.count + 1) }
    }

    @Test(
        "capctld's threads serve at the nice value capctld.service starts it with, not the one Dispatch gives the threads that start them"
    )
    func servesAtTheUnitsPriority() async throws {
        let unit = try Self.unit()
        let nice = try #require(Self.setting("Nice", in: unit).flatMap { Int($0) })
        #expect(nice < 0, "capctld runs above its clients' priority")
        // Without CAP_SYS_NICE (not in the unit's bounding set) a thread Dispatch lowered is raised
        // back only as far as LimitNICE allows.
        let limit = Self.setting("LimitNICE", in: unit).flatMap { Int($0) }
        #expect(limit.map { $0 <= nice } == true, "LimitNICE=\(String(describing: limit)) allows Nice=\(nice)")
        #expect(Self.setting("CapabilityBoundingSet", in: unit)?.contains("CAP_SYS_NICE") == false)
        let daemon = try await CapctldTests.Daemon(
            policy: Self.policy(1), wrapper: ["/usr/bin/nice", "-n", String(nice)])
        // A call, so that a serving thread has started.
        #expect(try DecisionClient(path: daemon.socket).check("root-only").outcome == .holds)
        for name in ["accept", "serving", "idle-deadlines"] {
            let values = ProcessThreads.niceValues(named: name, of: daemon.process.pid)
            #expect(!values.isEmpty && values.allSatisfy { $0 == nice }, "\(name): \(values)")
        }
        #expect(!daemon.startLines.contains { $0.contains("nice value") }, "\(daemon.startLines)")
    }

    @Test(
        "started at the unit's Nice= with neither LimitNICE= nor CAP_SYS_NICE, capctld says its threads cannot have it")
    func saysPriorityRefused() async throws {
        let nice = try #require(Self.setting("Nice", in: try Self.unit()).flatMap { Int($0) })
        // nice(1) sets it with root's CAP_SYS_NICE, then capctld runs without it (RLIMIT_NICE is 0).
        let daemon = try await CapctldTests.Daemon(
            policy: Self.policy(1),
            wrapper: [
                "/usr/bin/nice", "-n", String(nice), "/usr/bin/setpriv", "--bounding-set=-sys_nice",
                "--inh-caps=-sys_nice",
            ])
        #expect(
            daemon.startLines.contains {
                $0.contains("its threads cannot be given back the nice value \(nice) it was started with")
                    && $0.contains("LimitNICE=\(nice)")
            }, "\(daemon.startLines)")
        // Still serving, at the priority it could have.
        #expect(try DecisionClient(path: daemon.socket).check("root-only").outcome == .holds)
    }

    @Test("SIGHUP and file changes among four clients' calls: every answer is one whole policy's, none fails")
    func reloadsUnderLoad() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy(1))
        let stop = Latch()
        let changing = Task.detached {
            // Ten new policies, alternating, each written whole and signalled too.
            for round in 0..<10 {
                try? Self.policy(round % 2 == 0 ? 2 : 1).write(
                    toFile: daemon.policyFile, atomically: true, encoding: .utf8)
                kill(daemon.process.pid, SIGHUP)
                await Task.yield()
            }
            stop.open()
        }
        let results = await Self.asking(daemon.socket, gate: "root-only", clients: 4, until: stop)
        await changing.value
        for (decisions, failure) in results {
            #expect(failure == nil, "a client's call failed during reloads: \(String(describing: failure))")
            for decision in decisions {
                // Version 1 lets root through, version 2 does not: a mixed answer would be half of each.
                let consistent =
                    (decision.description == "Version 1" && decision.outcome == .holds)
                    || (decision.description == "Version 2" && decision.outcome == .fails)
                #expect(consistent, "\(decision)")
            }
        }
        #expect(results.map(\.decisions.count).reduce(0, +) > 0)
        // Still serving after it all.
        #expect(try DecisionClient(path: daemon.socket).check("root-only").gate == "root-only")
    }

    @Test("SIGTERM among four clients' calls: each gets whole answers, then a closed connection; capctld exits 0")
    func sigtermUnderLoad() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy(1))
        let never = Latch()
        let asking = Task { await Self.asking(daemon.socket, gate: "root-only", clients: 4, until: never) }
        // Once each client has been answered at least once, stop the daemon under them.
        let probe = try DecisionClient(path: daemon.socket)
        _ = try probe.check("root-only")
        kill(daemon.process.pid, SIGTERM)
        let results = await asking.value
        for (decisions, failure) in results {
            #expect(decisions.allSatisfy { $0.outcome == .holds && $0.gate == "root-only" }, "\(decisions)")
            // Each client's last call met a closed connection: never an answer that is not varlink.
            if case .error(let error)? = failure {
                Issue.record("an error reply instead of a closed connection: \(error)")
            }
            #expect(failure != nil, "the client was cut off when capctld stopped")
        }
        #expect(await daemon.process.waitForOutput(containing: "capctld: stopped"))
        #expect(daemon.process.waitUntilExit() == 0)
    }
}
