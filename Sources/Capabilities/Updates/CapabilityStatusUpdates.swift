/// A capability's status now and after every change, as an `AsyncSequence`.
///
/// The first element is the status when iteration starts; each later element differs from
/// the one before it. An error while reading is ``CapabilityStatus/Kind/unavailable`` with cause
/// `error`, as everywhere in the framework.
/// The sequence ends when the consumer stops iterating (or its task is cancelled).
///
/// ```swift
/// for await status in CapabilityStatusUpdates.polling(dataDirectory, every: .seconds(10)) {
///     print(status)
/// }
/// ```
public struct CapabilityStatusUpdates: AsyncSequence, Sendable {
    public typealias Element = CapabilityStatus

    private let makeStream: @Sendable () -> AsyncStream<CapabilityStatus>

    /// Wraps a stream of statuses; consecutive equal statuses are reported once.
    public init(_ stream: @escaping @Sendable () -> AsyncStream<CapabilityStatus>) {
        self.makeStream = stream
    }

    /// Re-reads `capability`'s status every `interval` and reports changes.
    public static func polling(_ capability: some CapabilityType, every interval: Duration) -> CapabilityStatusUpdates {
        CapabilityStatusUpdates {
            rereading(capability) { reread in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    await reread()
                }
            }
        }
    }

    /// Re-reads `capability`'s status whenever one of `signals` is notified, and whenever
    /// one of `sources` reports a change.
    public static func signalled(
        _ capability: some CapabilityType,
        by signals: [CapabilityChangeSignal],
        following sources: [CapabilityStatusUpdates] = []
    ) -> CapabilityStatusUpdates {
        CapabilityStatusUpdates {
            // Subscribe before the first read, so a change between the two is not lost.
            let triggers = signals.map { $0.subscribe() }
            return rereading(capability) { reread in
                await withTaskGroup(of: Void.self) { group in
                    for trigger in triggers {
                        group.addTask { for await _ in trigger { await reread() } }
                    }
                    for source in sources {
                        group.addTask { for await _ in source { await reread() } }
                    }
                }
            }
        }
    }

    /// Re-reads `capability`'s status whenever one of the streams `triggers` makes yields;
    /// the streams are made per iteration and ended with it (a netlink socket, an inotify watch).
    public static func rereading(
        _ capability: some CapabilityType,
        whenever triggers: @escaping @Sendable () -> [AsyncStream<Void>]
    ) -> CapabilityStatusUpdates {
        CapabilityStatusUpdates {
            let streams = triggers()
            return rereading(capability) { reread in
                await withTaskGroup(of: Void.self) { group in
                    for stream in streams {
                        group.addTask { for await _ in stream { await reread() } }
                    }
                }
            }
        }
    }

    /// A stream that yields the status at once and again each time `driver` calls `reread`
    /// and the status changed.
    private static func rereading(
        _ capability: some CapabilityType,
        driver: @escaping @Sendable (_ reread: @escaping @Sendable () async -> Void) async -> Void
    ) -> AsyncStream<CapabilityStatus> {
        let (stream, continuation) = AsyncStream<CapabilityStatus>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let task = Task {
            let last = LastStatus()
            let reread: @Sendable () async -> Void = {
                let status = await capability.resolveStatus()
                if await last.replace(with: status) { continuation.yield(status) }
            }
            await reread()
            await driver(reread)
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<CapabilityStatus>.AsyncIterator
        var last: CapabilityStatus?

        public mutating func next() async -> CapabilityStatus? {
            while let status = await base.next() {
                if status != last {
                    last = status
                    return status
                }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: makeStream().makeAsyncIterator(), last: nil)
    }
}

/// The last status a subscriber reported, so it reports only changes.
private actor LastStatus {
    private var status: CapabilityStatus?

    func replace(with new: CapabilityStatus) -> Bool {
        defer { status = new }
        return status != new
    }
}
