import CLinuxSupport
import Foundation
import Glibc
import Locking
import TestSupport
import Testing

/// Checks as another user run on threads kept for them (`clinux_run_with_file_credentials`),
/// each run with its own credentials, and never waiting for another run's thread.
@Suite("file checks as another user", .enabled(if: geteuid() == 0, "taking another user's file credentials needs root"))
struct FileCredentialsTests {
    @Test("one after another, the runs share a kept thread, and each has its own user and groups")
    func keptThreadOwnCredentials() throws {
        let users = ["65534:65534:", "4242:4343:4343,5000,5001", "65534:65534:27", "0:0:"]
        let output = try runProcess(Probe.executable, ["file-credentials"] + users)
        #expect(output.status == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: false)
        }
        try #require(
            lines.count == users.count + 1 && lines.dropLast().allSatisfy { $0.count == 4 } && lines.last?.count == 5,
            "\(output.standardOutput)")
        for (user, line) in zip(users, lines) {
            let parts = user.split(separator: ":", omittingEmptySubsequences: false)
            #expect(line[1] == parts[0] && line[2] == parts[1], "\(user): \(line)")
            #expect(Set(line[3].split(separator: ",")) == Set(parts[2].split(separator: ",")), "\(user): \(line)")
        }
        let caller = lines[users.count]
        #expect(caller[0] == "caller" && caller[2] == "0" && caller[3] == "0", "untouched: \(caller)")
        #expect(Set(lines.prefix(users.count).map { $0[0] }).count == 1, "a thread per run: \(lines)")
        #expect(lines[0][0] != caller[1], "never on the calling thread")
    }

    /// What a run's body does while it runs.
    private final class Body: Sendable {
        let inside: @Sendable () -> Void
        init(_ inside: @escaping @Sendable () -> Void) { self.inside = inside }
    }

    @Test("more runs at once than threads kept: none waits for another's thread")
    func moreRunsThanKeptThreads() async {
        let runs = 6
        let inside = Lock(0)
        let allInside = DispatchSemaphore(value: 0)
        let reachedTogether = Lock(0)
        let codes = Lock<[Int32]>([])
        let body = Body {
            // Every body waits here until all are inside: a run that waited for a busy thread
            // would never arrive, and the others would give up after 30 s.
            let last = inside.withLock { count in
                count += 1
                return count == runs
            }
            if last { for _ in 0..<runs { allInside.signal() } }
            if allInside.wait(timeout: .now() + 30) == .success { reachedTogether.withLock { $0 += 1 } }
        }
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let done = DispatchGroup()
            for _ in 0..<runs {
                done.enter()
                Thread {
                    let code = withExtendedLifetime(body) {
                        clinux_run_with_file_credentials(
                            65534, 65534, [], 0,
                            { context in Unmanaged<Body>.fromOpaque(context!).takeUnretainedValue().inside() },
                            Unmanaged.passUnretained(body).toOpaque())
                    }
                    codes.withLock { $0.append(code) }
                    done.leave()
                }.start()
            }
            done.notify(queue: .global()) { finished.resume() }
        }
        #expect(codes.withLock { $0 } == Array(repeating: 0, count: runs))
        #expect(reachedTogether.withLock { $0 } == runs)
    }
}
