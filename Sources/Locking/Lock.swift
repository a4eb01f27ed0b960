#if TSAN_VISIBLE_LOCKS
    import Glibc
#else
    package import Synchronization
#endif

#if !TSAN_VISIBLE_LOCKS
    /// A value that only one thread at a time may read or change: every lock in this package.
    ///
    /// Ordinary builds use the standard library's `Mutex` itself (a futex word, no allocation,
    /// specialized and inlined like any use of `Mutex`). Thread Sanitizer cannot see that lock on
    /// Linux (the standard library is not instrumented), so it reports every guarded access as a
    /// race and the real ones drown. Builds with `-Xswiftc -DTSAN_VISIBLE_LOCKS`
    /// (`Scripts/sanitize thread`) use a pthread mutex instead, which the sanitizer intercepts;
    /// only those builds pay for it.
    package typealias Lock<Value: ~Copyable> = Mutex<Value>
#else
    /// The sanitizer builds' lock: the same interface as `Mutex`, on a pthread mutex.
    package struct Lock<Value: ~Copyable>: ~Copyable {
        @usableFromInline let box: PthreadBox<Value>

        /// Creates a lock guarding `value`.
        @inlinable
        package init(_ value: consuming sending Value) {
            box = PthreadBox(value)
        }

        /// Runs `body` with the value while holding the lock.
        @inlinable
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            try box.withLock(body)
        }
    }

    // Sendable by hand, as Mutex is: the value is only reached through withLock, under the mutex.
    extension Lock: @unchecked Sendable where Value: ~Copyable {}

    /// A pthread mutex and the value it guards (sendable because every access holds the mutex).
    @usableFromInline
    final class PthreadBox<Value: ~Copyable>: @unchecked Sendable {
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        // Behind a pointer rather than a stored property: no exclusivity bookkeeping of the
        // property itself, which the sanitizer would see outside the mutex.
        private let value: UnsafeMutablePointer<Value>

        @usableFromInline
        init(_ value: consuming Value) {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            self.value = .allocate(capacity: 1)
            self.value.initialize(to: value)
            // Publishes the initial value through the mutex: a lock created by a lazily initialized
            // global (swift_once, which the sanitizer cannot see) is first used on another thread.
            pthread_mutex_lock(mutex)
            pthread_mutex_unlock(mutex)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
            value.deinitialize(count: 1)
            value.deallocate()
        }

        @usableFromInline
        func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
#endif
