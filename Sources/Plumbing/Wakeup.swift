import Glibc
import Synchronization
package import SystemPackage

/// Wakes a thread waiting in poll(2) from any thread: a byte on a socket pair.
package final class Wakeup: Sendable {
    /// The end a waiting thread polls; nil when no pair could be made (the process is out of
    /// descriptors): then only ``wasSignalled`` tells, and a waiter must not wait without a bound.
    package var descriptor: FileDescriptor? { reader }
    private let reader: FileDescriptor?
    private let writer: FileDescriptor?
    private let signalled = Atomic<Bool>(false)

    package init() {
        let pair = try? FileDescriptor.socketPair()
        reader = pair?.0
        writer = pair?.1
    }

    package var wasSignalled: Bool { signalled.load(ordering: .acquiring) }

    package func signal() {
        guard !signalled.exchange(true, ordering: .acquiringAndReleasing), let writer else { return }
        _ = try? writer.writeAll(CollectionOfOne(UInt8(1)))
    }

    deinit {
        try? reader?.close()
        try? writer?.close()
    }
}
