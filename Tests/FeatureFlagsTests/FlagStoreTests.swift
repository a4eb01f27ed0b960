import Capabilities
import ConfigurationFiles
import FeatureFlags
import ServiceLifecycleTestKit
import TestSupport
import Testing

/// Flag files are watched: edits apply without a restart, and a broken edit keeps the last
/// good flags and reports the error.
@Suite("Flag store", .timeLimit(.minutes(2)))
struct FlagStoreTests {
    /// The next event, skipping none.
    private func next(_ events: inout AsyncStream<FlagStoreEvent>.AsyncIterator) async throws -> FlagStoreEvent {
        try #require(await events.next())
    }

    @Test("an edit written in place takes effect without a restart")
    func editInPlace() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(toggleFile("new-export", on: false), to: "flags.json")
        let flags = FlagStore(files: [file], context: FlagEvaluationContext())
        var events = flags.events().makeAsyncIterator()
        #expect(flags.value("new-export", default: true) == false)

        try directory.write(toggleFile("new-export", on: true), to: "flags.json")
        guard case .loaded(let loaded, let keys) = try await next(&events) else {
            Issue.record("expected a load")
            return
        }
        #expect(loaded == file)
        #expect(keys == ["new-export"])
        #expect(flags.value("new-export", default: false) == true)
    }

    @Test("a file replaced by rename is followed")
    func replacedByRename() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(toggleFile("f", on: false), to: "flags.json")
        let flags = FlagStore(files: [file], context: FlagEvaluationContext())
        var events = flags.events().makeAsyncIterator()
        for round in 1...3 {
            try directory.replace("flags.json", with: toggleFile("f", on: round % 2 == 1))
            guard case .loaded = try await next(&events) else {
                Issue.record("expected a load")
                return
            }
            #expect(flags.value("f", default: false) == (round % 2 == 1))
        }
    }

    @Test("a broken edit keeps the last good flags and reports where it broke")
    func brokenEdit() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(toggleFile("f", on: true), to: "flags.json")
        let flags = FlagStore(files: [file], context: FlagEvaluationContext())
        var events = flags.events().makeAsyncIterator()

        try directory.write(
            "{\"flags\": {\"f\": {\"state\": \"ENABLED\",\n  \"variants\": {\"on\": true, \"off\": false},\n  \"defaultVariant\": \"on\"}}",
            to: "flags.json")
        guard case .failed(let error) = try await next(&events) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.location == FileLocation(file: file, line: 3, column: 27))
        #expect(flags.problems == [error])
        let details = flags.evaluation("f", default: false)
        #expect(details.value == true)
        #expect(details.reason == .static)

        try directory.write(toggleFile("f", on: false), to: "flags.json")
        guard case .loaded = try await next(&events) else {
            Issue.record("expected a load")
            return
        }
        #expect(flags.problems.isEmpty)
        #expect(flags.value("f", default: true) == false)

        // A flag that cannot be evaluated loads broken, as in flagd: the others stay usable.
        try directory.write(
            "{\"flags\": {\"f\": {\"state\": \"ENABLED\",\n  \"variants\": {\"on\": true, \"off\": false},\n  \"defaultVariant\": \"maybe\"},\n"
                + "  \"g\": {\"state\": \"ENABLED\", \"variants\": {\"on\": true}, \"defaultVariant\": \"on\"}}}",
            to: "flags.json")
        guard case .loaded = try await next(&events) else {
            Issue.record("expected a load")
            return
        }
        #expect(flags.problems.map(\.location) == [FileLocation(file: file, line: 3, column: 21)])
        #expect(flags.loadFailures.isEmpty)
        let broken = flags.evaluation("f", default: true)
        #expect(broken.value == true)
        #expect(broken.errorCode == .parseError)
        #expect(flags.value("g", default: false) == true)
    }

    @Test("a file that never loaded: its flags are errors, never silently on")
    func neverLoaded() throws {
        let directory = try TemporaryDirectory()
        let broken = try directory.write("{\"flags\": {\"f\": ", to: "broken.json")
        let flags = FlagStore(
            files: [broken, directory.path + "/missing.json"], watchesFiles: false, context: FlagEvaluationContext())
        let details = flags.evaluation("f", default: false)
        #expect(details.value == false)
        #expect(details.errorCode == .parseError)
        #expect(details.errorMessage?.contains("broken.json:1:") == true)
        #expect(flags.problems.count == 2)

        let onlyMissing = FlagStore(
            files: [directory.path + "/missing.json"], watchesFiles: false, context: FlagEvaluationContext())
        let missing = onlyMissing.evaluation("f", default: false)
        #expect(missing.errorCode == .general)
        #expect(missing.errorMessage?.contains("No such file") == true)
    }

    @Test("a later file overrides an earlier one, flag by flag")
    func layering() throws {
        let directory = try TemporaryDirectory()
        let vendor = try directory.write(
            """
            {"flags": {
              "a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"},
              "b": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}
            """, to: "vendor.json")
        let admin = try directory.write(toggleFile("b", on: true), to: "admin.yaml")
        let flags = FlagStore(files: [vendor, admin], watchesFiles: false, context: FlagEvaluationContext())
        #expect(flags.value("a", default: true) == false)
        #expect(flags.value("b", default: false) == true)
        #expect(flags.flags.keys.sorted() == ["a", "b"])
    }

    @Test("a flag capability follows the file")
    func capabilityFollowsFile() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(toggleFile("new-export", on: true), to: "flags.json")
        let flags = FlagStore(files: [file], context: FlagEvaluationContext())
        var updates = FeatureFlag("new-export", in: flags).statusUpdates().makeAsyncIterator()
        #expect(await updates.next()?.kind == .authorized)
        try directory.replace("flags.json", with: toggleFile("new-export", on: false))
        let next = try #require(await updates.next())
        #expect(next.kind == .denied)
        #expect(next.reason.contains("new-export is false"))
    }

    @Test("in a ServiceGroup, the store follows its files until graceful shutdown, then closes its watcher")
    func runsAsService() async throws {
        let directory = try TemporaryDirectory(prefix: "flag-service")
        let file = try directory.write(toggleFile("new-export", on: true), to: "flags.json")
        let flags = FlagStore(files: [file], context: FlagEvaluationContext())
        try await testGracefulShutdown { trigger in
            let running = Task { try await flags.run() }
            #expect(OpenDescriptors.inotifyInstances(watching: directory.path) == 1)
            trigger.triggerGracefulShutdown()
            try await running.value
        }
        #expect(OpenDescriptors.inotifyInstances(watching: directory.path) == 0)
        #expect(flags.value("new-export", default: false) == true)
    }

    @Test("shutdown() closes the store's inotify instance before it returns; the flags stay")
    func shutdownClosesTheWatcher() throws {
        let directory = try TemporaryDirectory(prefix: "flag-lifecycle")
        let file = try directory.write(toggleFile("new-export", on: true), to: "flags.json")
        let flags = FlagStore(files: [file], context: FlagEvaluationContext())
        #expect(flags.watchFailure == nil)
        #expect(OpenDescriptors.inotifyInstances(watching: directory.path) == 1)
        flags.shutdown()
        #expect(OpenDescriptors.inotifyInstances(watching: directory.path) == 0)
        #expect(flags.value("new-export", default: false) == true)
        flags.shutdown()
    }

    @Test("a flag file that cannot be watched is reported (watchFailure), not silently unwatched")
    func unwatchableFile() throws {
        let directory = try TemporaryDirectory(prefix: "flag-lifecycle")
        let missing = directory.path + "/no-such-directory/flags.json"
        let flags = FlagStore(files: [missing], context: FlagEvaluationContext())
        let failure = try #require(flags.watchFailure)
        #expect(failure.description.contains("cannot watch \(directory.path)/no-such-directory"), "\(failure)")
        #expect(FlagStore(files: [missing], watchesFiles: false, context: FlagEvaluationContext()).watchFailure == nil)
    }
}
