import CLinuxSupport
import Glibc
import Synchronization

/// Wakes a thread waiting in poll(2) from any thread: a byte on a socket pair.
final class Wakeup: Sendable {
    let descriptor: Int32
    private let writer: Int32
    private let signalled = Atomic<Bool>(false)

    init() {
        var ends: [Int32] = [-1, -1]
        if socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) != 0 {
            ends = [-1, -1]
        }
        descriptor = ends[0]
        writer = ends[1]
    }

    var wasSignalled: Bool { signalled.load(ordering: .acquiring) }

    func signal() {
        guard !signalled.exchange(true, ordering: .acquiringAndReleasing), writer >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writer >= 0 { close(writer) }
    }
}
