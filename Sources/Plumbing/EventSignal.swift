import CPlatform
import Glibc
package import SystemPackage

/// A signal a thread waiting in poll(2) sees, given from any thread, and taken back by the
/// waiter to wait again: one eventfd, however many waits (a watch that waits a thousand times
/// opens no descriptor per wait, and cannot fail at the thousandth).
package final class EventSignal: Sendable {
    /// What the waiter polls: readable while the signal is given and not taken.
    package let descriptor: FileDescriptor

    /// Opens the eventfd; fails only when the process or system has no descriptor left.
    package init() throws(Errno) {
        let descriptor = cplatform_eventfd()
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        self.descriptor = FileDescriptor(rawValue: descriptor)
    }

    /// Gives the signal (again: several before a take count as one).
    package func signal() {
        var one: UInt64 = 1
        _ = write(descriptor.rawValue, &one, MemoryLayout<UInt64>.size)
    }

    /// Takes the signal back: whether it was given since the last take.
    @discardableResult
    package func take() -> Bool {
        var count: UInt64 = 0
        return read(descriptor.rawValue, &count, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size
    }

    deinit {
        try? descriptor.close()
    }
}
