import CapabilityPolicy
import Foundation
import Glibc
import LinuxBackends
import LinuxPolicy
import ServiceLifecycleTestKit
import TestSupport
import Testing

/// The library watches policy files: changes apply without a restart; a broken change keeps
/// the last good policy and says why.
@Suite("Policy store", .timeLimit(.minutes(2)))
struct PolicyStoreTests {
    @Test("an edit and a new drop-in apply; a broken edit keeps the last good policy")
    func reload() async throws {
        let root = TestRunDirectory.path + "/policy-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/policy.d", withIntermediateDirectories: true)
        chmod(root, 0o755)
        chmod(root + "/policy.d", 0o755)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func write(_ name: String, _ text: String) throws {
            let staging = root + "/." + UUID().uuidString
            try text.write(toFile: staging, atomically: false, encoding: .utf8)
            chmod(staging, 0o644)
            rename(staging, root + "/" + name)
        }
        try write("policy.yaml", "capabilities:\n  data: { kind: file, path: /tmp }\n")
        let store = PolicyStore(
            searchPath: PolicySearchPath(directories: [root]), environment: .linux,
            options: PolicyOptions(watchesFlagFiles: false))
        var events = store.events().makeAsyncIterator()
        #expect(store.current?.policy.capabilities.keys.sorted() == ["data"])

        // Writing a file is several events (the staging file, the rename); wait for the one that matters.
        try write("policy.d/10-more.yaml", "capabilities:\n  more: { kind: network }\n")
        while case .reloaded? = await events.next(), store.current?.policy.capabilities["more"] == nil {}
        #expect(store.current?.policy.capabilities.keys.sorted() == ["data", "more"])

        try write("policy.yaml", "capabilities:\n  data: { kind: file, paht: /tmp }\n")
        var failure: PolicyErrors?
        while let event = await events.next() {
            if case .failed(let errors) = event {
                failure = errors
                break
            }
        }
        let errors = try #require(failure)
        #expect(errors.errors.first?.location?.line == 2)
        #expect(store.current?.policy.capabilities.keys.sorted() == ["data", "more"], "the last good policy stays")
        #expect(!store.problems.isEmpty)
    }

    /// A search-path root whose policy reads a flag file in a directory of its own (a flag store
    /// that watches it).
    static func policyWithFlagFile() throws -> (directory: TemporaryDirectory, root: String, flags: String) {
        let directory = try TemporaryDirectory(prefix: "policy-lifecycle")
        let flags = try directory.directory("flags")
        try directory.write(
            #"{"flags": {"f": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}}}"#,
            to: "flags/flags.json")
        let root = try directory.directory("root")
        try directory.write("flags:\n  files: [\(flags)/flags.json]\n", to: "root/policy.yaml")
        return (directory, root, flags)
    }

    @Test("a reload frees the policy it replaces, flag store and file watcher included; releasing the store frees all")
    func reloadsFreeWhatTheyReplace() throws {
        let (directory, root, _) = try Self.policyWithFlagFile()
        defer { withExtendedLifetime(directory) {} }
        var store: PolicyStore? = PolicyStore(searchPath: PolicySearchPath(directories: [root]), environment: .linux)
        weak let firstFlags = store?.current?.flags
        weak let firstPolicy = store?.current
        #expect(firstFlags?.flags["f"] != nil)
        for _ in 0..<20 { store?.reload() }
        // Each reload's flag store watches the flag file with an inotify instance of its own, closed
        // when the store goes (2 -> 22 instances after 20 reloads when they were kept).
        #expect(firstPolicy == nil && firstFlags == nil, "the first policy and its flag store are freed")
        weak let lastFlags = store?.current?.flags
        weak let released = store
        #expect(lastFlags?.flags["f"] != nil)
        store = nil
        #expect(released == nil && lastFlags == nil, "nothing keeps a released store or its flags alive")
    }

    @Test("shutdown() closes every inotify instance of the store, policy files' and flag files' alike")
    func shutdownClosesEveryWatcher() throws {
        let (directory, root, flags) = try Self.policyWithFlagFile()
        defer { withExtendedLifetime(directory) {} }
        let store = PolicyStore(searchPath: PolicySearchPath(directories: [root]), environment: .linux)
        #expect(store.watchFailure == nil)
        #expect(OpenDescriptors.inotifyInstances(watching: root) == 1)
        #expect(OpenDescriptors.inotifyInstances(watching: flags) == 1)
        store.shutdown()
        #expect(OpenDescriptors.inotifyInstances(watching: root) == 0)
        #expect(OpenDescriptors.inotifyInstances(watching: flags) == 0)
        #expect(store.current?.flags.flags["f"] != nil, "the policy in force stays")
    }

    @Test("in a ServiceGroup, the store follows its files until the group shuts down gracefully, then stops")
    func runsAsService() async throws {
        let (directory, root, flags) = try Self.policyWithFlagFile()
        defer { withExtendedLifetime(directory) {} }
        let store = PolicyStore(searchPath: PolicySearchPath(directories: [root]), environment: .linux)
        try await testGracefulShutdown { trigger in
            let running = Task { try await store.run() }
            #expect(OpenDescriptors.inotifyInstances(watching: root) == 1)
            trigger.triggerGracefulShutdown()
            try await running.value
        }
        #expect(OpenDescriptors.inotifyInstances(watching: root) == 0)
        #expect(OpenDescriptors.inotifyInstances(watching: flags) == 0)
        #expect(store.current != nil, "the policy in force stays")
    }

    @Test("cancelled instead, the store stops following its files as well")
    func cancelledService() async throws {
        let (directory, root, _) = try Self.policyWithFlagFile()
        defer { withExtendedLifetime(directory) {} }
        let store = PolicyStore(searchPath: PolicySearchPath(directories: [root]), environment: .linux)
        let running = Task { try await store.run() }
        running.cancel()
        try await running.value
        #expect(OpenDescriptors.inotifyInstances(watching: root) == 0)
    }
}

@Suite("Policy store, memory")
struct PolicyStoreMemoryTests {
    @Test("a policy replaced by a reload is freed once nobody holds it")
    func replacedPolicyIsFreed() throws {
        let directory = try TemporaryDirectory(prefix: "policy-memory")
        try directory.write(
            """
            capabilities:
              is-root: { kind: user, user: root }
            flags:
              inline: { flags: { beta: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "on" } } }
            gates:
              g: { require: { all-of: [is-root, { not: is-root }, { flag: beta }] } }
            """, to: "policy.yaml")
        let store = PolicyStore(
            searchPath: PolicySearchPath(directories: [directory.path], userDirectory: nil), environment: .linux)
        weak let first = store.current
        #expect(first != nil)
        store.reload()
        #expect(store.current != nil)
        #expect(first == nil, "the policy the reload replaced is still alive")
    }
}
