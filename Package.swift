// swift-tools-version: 6.1
import PackageDescription

// The package reads as its products, then the targets behind them in groups: the libraries, their
// C shims, the tools, the examples, the benchmarks and fuzzers, and the tests with their support.
// Only the libraries, capctl, capctld and the two plugins are products; everything else is here to build,
// check or show them.

/// The libraries.
let libraryTargets: [Target] = [
    // The operation core: procedures, queues, conditions, exclusivity. Knows nothing of gating.
    .target(
        name: "ProcedureCore",
        dependencies: [
            "CPlatform", "Locking", .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    // The one lock every module uses: the standard library's Mutex, or a pthread mutex that
    // Thread Sanitizer can see in builds with -DTSAN_VISIBLE_LOCKS (Scripts/sanitize).
    .target(name: "Locking"),
    // Package-internal plumbing the modules share, not a product: one event broadcast, one reload
    // rule for configuration, one way to run blocking calls off Swift's cooperative pool, and the
    // descriptor options swift-system lacks.
    .target(
        name: "Plumbing",
        dependencies: ["Locking", "CPlatform", .product(name: "SystemPackage", package: "swift-system")]),
    // The gating layer: capabilities, statuses, subjects, the conditions on them.
    .target(name: "Capabilities", dependencies: ["CPlatform", "ProcedureCore", "Locking", "Plumbing"]),
    // Test doubles for code that gates on capabilities: a scripted capability, a manual clock.
    .target(name: "CapabilityTesting", dependencies: ["Capabilities", "Locking"]),
    // Configuration files as every reader needs them: JSON and YAML documents with positions,
    // one located error type, the trusted file reader, and directory watching.
    .target(
        name: "ConfigurationFiles",
        dependencies: [
            "CLinuxSupport", "Locking", "Plumbing", .product(name: "SystemPackage", package: "swift-system"),
        ]),
    // Linux backends: PAM, polkit, filesystem, network, process capabilities, users and groups,
    // subjects as the kernel identifies them, and serving clients over a Unix socket. Knows
    // nothing of policies or flags.
    .target(
        name: "LinuxBackends",
        dependencies: [
            "Capabilities", "ConfigurationFiles", "CLinuxSupport", "CPAM", "CSystemdBus", "Locking", "Plumbing",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    // The Linux backends in policies and flags: the policy kinds of LinuxBackends' capabilities,
    // the flag evaluation context of this host, the audit trail of gate decisions, and serving
    // a client's request on a gate. The one module that joins the backends to the policy layer.
    .target(
        name: "LinuxPolicy",
        dependencies: [
            "LinuxBackends", "Capabilities", "CapabilityPolicy", "FeatureFlags", "ConfigurationFiles", "CLinuxSupport",
            "Plumbing",
            "Locking", "ProcedureCore", .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    // Feature flags from flagd-format files (JSON or YAML), as capabilities and conditions.
    .target(
        name: "FeatureFlags",
        dependencies: [
            "Capabilities", "ProcedureCore", "ConfigurationFiles", "Locking", "Plumbing",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "ServiceContextModule", package: "swift-service-context"),
        ]),
    // OpenFeature's isolated API instances (1.8): the factory, apart from the singleton on purpose.
    .target(name: "OpenFeatureIsolation", dependencies: ["FeatureFlags"]),
    // Flags from a central service: flagd's HTTP sync as a flag source, and an OFREP provider.
    // The only module that speaks HTTP, through the system's libcurl (loaded at run time, as libpam
    // is: TLS and certificate authorities from Debian, with its security updates); the core and the
    // file-based modules do not.
    .target(
        name: "RemoteFlags",
        dependencies: [
            "FeatureFlags", "Capabilities", "ConfigurationFiles", "Locking", "Plumbing", "CCurl",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
    // Policy files: layered search paths, parsing, gates.
    .target(
        name: "CapabilityPolicy",
        dependencies: [
            "Capabilities", "ConfigurationFiles", "FeatureFlags", "ProcedureCore", "Plumbing",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
    // varlink (varlink.org), the protocol capctld speaks: JSON calls and replies ended by NUL on a
    // Unix socket, as systemd's services speak it, so any language can ask.
    .target(
        name: "Varlink",
        dependencies: [
            "ConfigurationFiles", "Locking", "Plumbing", "CLinuxSupport",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
    // The decision service: the system policy's gates decided for a socket's clients, in varlink
    // (`org.capctl.Gates`). What capctld runs, for any root service to run on its own socket.
    .target(
        name: "DecisionService",
        dependencies: [
            "Varlink", "LinuxPolicy", "LinuxBackends", "CapabilityPolicy", "Capabilities", "ConfigurationFiles",
            "ProcedureCore", "Plumbing", "Locking", .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
    // Gates of a policy decided for each request of a web service: for the request's user, 403 / 503 / 401.
    .target(
        name: "RouteGates",
        dependencies: [
            "CapabilityPolicy", "LinuxPolicy", "LinuxBackends", "Capabilities", "FeatureFlags", "Locking",
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
    // The route gates as Hummingbird 2 middleware, and an adapter to HummingbirdAuth's authorization
    // policies. Built only with the package trait "Hummingbird": a user of the core builds no web framework.
    .target(
        name: "HummingbirdGates",
        dependencies: [
            "RouteGates", "LinuxBackends",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
            .product(name: "HummingbirdAuth", package: "hummingbird-auth", condition: .when(traits: ["Hummingbird"])),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
        ]),
    // The route gates as Vapor 4 middleware; only with the package trait "Vapor".
    .target(
        name: "VaporGates",
        dependencies: [
            "RouteGates", "LinuxBackends",
            .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
        ]),
]

/// C declarations the libraries and tools call.
let cTargets: [Target] = [
    // The operating system services the portable modules need (processor count, a per-thread marker).
    .target(name: "CPlatform"),
    // Linux system calls Glibc does not spell (netlink, pidfds, seccomp, peer credentials).
    .target(name: "CLinuxSupport"),
    // The commit a release build was made from (`capctl --version`), written by Scripts/build-deb.
    .target(name: "CBuildInfo"),
    // capctl's __cxa_demangle, which keeps GCC's demangler out of its static link (size).
    .target(name: "CCxxDemangle"),
    // capctl's arguments as glibc hands them to constructors, which keeps the Swift runtime's
    // search of /proc/self/maps for them out of its static link (start time).
    .target(name: "CArgumentVector"),
    // The C library as capctl's front sees it, and its arguments (it has no Swift runtime).
    .target(name: "CCapctlFront"),
    // Linux-PAM's declarations for loading libpam at run time; checked against the real header when present.
    .target(name: "CPAM"),
    // sd-bus's declarations (libsystemd) for loading it at run time: the D-Bus client of the polkit backend.
    .target(name: "CSystemdBus"),
    // libcurl's easy interface as function pointer types, for dlopen (checked against curl/curl.h when installed).
    .target(name: "CCurl"),
]

/// capctl, its helper, and the plugins with the generator they run.
let toolTargets: [Target] = [
    // `capctl`: shows, checks, explains and uses capabilities, flags and gates. Its tests run the
    // built binary, as administrators do.
    .executableTarget(
        name: "capctl",
        dependencies: [
            "LinuxPolicy", "CapabilityPolicy", "ConfigurationFiles", "LinuxBackends", "Capabilities", "FeatureFlags",
            "ProcedureCore", "Plumbing", "CLinuxSupport", "CPlatform", "CBuildInfo", "CCxxDemangle", "CArgumentVector",
            "Locking", "DecisionService",
            "Varlink", "CapctlDaemon", "FlagSourceHelper", "FlagSourceClient",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ],
        // The released binary, 22.1 MB stripped, is 19.8 MB with these (Docs/Performance.md, "One
        // binary"): none of its own symbols exported (nothing loads it as a library) and its 50,000
        // relative relocations packed (glibc 2.36, Debian 12), through lld, which packs them. And
        // it starts faster (Packaging/Linking/README.md): the C++ runtime linked in, and the
        // functions a start runs side by side.
        linkerSettings: [
            .unsafeFlags(
                [
                    "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker",
                    "pack-relative-relocs", "-L\(Context.packageDirectory)/Packaging/Linking", "-Xlinker",
                    "--symbol-ordering-file=\(Context.packageDirectory)/Packaging/Linking/capctl-startup.order",
                    "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "--icf=safe",
                ],
                .when(configuration: .release))
        ]),
    // The released `capctl` (Docs/Performance.md, "Tenth session"): a program without the Swift
    // runtime that answers `capctl check GATE` through capctld and loads capctl, built as a library
    // by Scripts/build-release-capctl, for everything else. Embedded Swift: linked to the C library
    // alone.
    .executableTarget(
        name: "capctl-front", dependencies: ["CCapctlFront", "CLinuxSupport"],
        swiftSettings: [.enableExperimentalFeature("Embedded")]),
    // `capctld`: the decision service as a system daemon (socket activation or --listen), for
    // development; the package runs it as a name of capctl's binary.
    .executableTarget(name: "capctld", dependencies: ["CapctlDaemon"]),
    // capctl's helper for flag services, for development; the package runs it as a name of capctl's binary.
    .executableTarget(name: "capctl-flag-source", dependencies: ["FlagSourceHelper"]),
    // capctld's process: options, signals, the listener, the policy store and the service group.
    .target(
        name: "CapctlDaemon",
        dependencies: [
            "DecisionService", "LinuxPolicy", "LinuxBackends", "CapabilityPolicy", "ConfigurationFiles", "Plumbing",
            "FlagSourceClient", "CBuildInfo", "CLinuxSupport", "Locking",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
    // The flag service helper's process: the one process of capctl's that talks HTTP (RemoteFlags,
    // libcurl), started only for a policy that names a service, unprivileged before the first byte.
    .target(
        name: "FlagSourceHelper",
        dependencies: [
            "RemoteFlags", "FeatureFlags", "FlagSourceClient", "ConfigurationFiles", "Locking", "CLinuxSupport",
        ]),
    // The helper's client, for capctl and capctld: starts it, reads its typed messages, and links
    // no HTTP client.
    .target(
        name: "FlagSourceClient",
        dependencies: [
            "FeatureFlags", "ConfigurationFiles", "Plumbing", "Locking", "CLinuxSupport",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
    // Typed names for a target's flag and policy files (FlagKeys, GateNames, CapabilityNames).
    .plugin(
        name: "GenerateFlagAccessors", capability: .buildTool(),
        dependencies: ["flag-accessor-generator"], path: "Plugins/GenerateFlagAccessors"),
    .executableTarget(
        name: "flag-accessor-generator",
        dependencies: ["LinuxPolicy", "FeatureFlags", "CapabilityPolicy", "ConfigurationFiles", "LinuxBackends"]),
    // `swift package validate-policy`: capctl validate over the package's policy and flag files, for CI.
    .plugin(
        name: "ValidatePolicy",
        capability: .command(
            intent: .custom(verb: "validate-policy", description: "Check every policy and flag file in the package.")),
        dependencies: ["capctl"], path: "Plugins/ValidatePolicy"),
]

/// The examples (Docs/Example.md): not products, built and tested with everything else.
let exampleTargets: [Target] = [
    // The seeds' download workflow as a gated command (Examples/DownloadWorkflow).
    .target(
        name: "DownloadWorkflowKit",
        dependencies: ["LinuxPolicy", "ProcedureCore", "Capabilities", "FeatureFlags", "LinuxBackends", "Plumbing"],
        path: "Examples/DownloadWorkflow/Kit"),
    .executableTarget(
        name: "download-workflow",
        dependencies: ["DownloadWorkflowKit", "ProcedureCore", "Capabilities", "FeatureFlags", "LinuxBackends"],
        path: "Examples/DownloadWorkflow/Command"),
    // A root service that gates each client's request on a policy gate decided for that client,
    // and its client (Examples/GatedService).
    .executableTarget(
        name: "gated-daemon",
        dependencies: [
            "LinuxPolicy", "LinuxBackends", "CapabilityPolicy", "ProcedureCore", "RemoteFlags",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Examples/GatedService/Daemon"),
    .executableTarget(name: "gated-client", dependencies: ["LinuxBackends"], path: "Examples/GatedService/Client"),
]

/// The benchmarks (Docs/Performance.md) and fuzzers (Docs/Security.md): not products.
let measuringTargets: [Target] = [
    .executableTarget(
        name: "core-bench",
        dependencies: [
            "LinuxPolicy", "CapabilityPolicy", "ProcedureCore", "Capabilities", "CapabilityTesting", "FeatureFlags",
            "LinuxBackends",
            "HeapUsage", "RemoteFlags", "CLinuxSupport", "TestSupport", "DecisionService", "RouteGates",
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Benchmarks/CoreBench"),
    .target(name: "HeapUsage", path: "Benchmarks/HeapUsage"),
    .plugin(
        name: "CoreBenchPlugin",
        capability: .command(
            intent: .custom(verb: "core-bench", description: "Build and run the operation core benchmark.")),
        path: "Plugins/CoreBenchPlugin"),
    // Fuzz targets for the parsers and the targeting evaluator: libFuzzer entry points when built
    // with `--sanitize fuzzer -Xswiftc -DFUZZING`, corpus replayers otherwise.
    .target(name: "FuzzSupport", dependencies: ["FeatureFlags", "ConfigurationFiles"], path: "Fuzz/Support"),
    .executableTarget(
        name: "PolicyFuzzer", dependencies: ["LinuxPolicy", "CapabilityPolicy", "LinuxBackends", "FuzzSupport"],
        path: "Fuzz/PolicyFuzzer"),
    .executableTarget(name: "FlagFuzzer", dependencies: ["FeatureFlags", "FuzzSupport"], path: "Fuzz/FlagFuzzer"),
    .executableTarget(
        name: "TargetingFuzzer", dependencies: ["FeatureFlags", "FuzzSupport"], path: "Fuzz/TargetingFuzzer"),
    // What capctld reads from clients, on a real connection to a DecisionService.
    .executableTarget(
        name: "DecisionFuzzer",
        dependencies: [
            "DecisionService", "CapabilityPolicy", "LinuxPolicy", "LinuxBackends", "CLinuxSupport", "Plumbing",
            "FuzzSupport",
        ],
        path: "Fuzz/DecisionFuzzer"),
]

/// The tests, one target per module or program, and what they share.
let testTargets: [Target] = [
    // Helpers shared by every test target: latches, counters, event logs, real daemons.
    .target(
        name: "TestSupport",
        dependencies: [
            "ProcedureCore", "FeatureFlags", "ConfigurationFiles", "CLinuxSupport", "Locking",
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Tests/TestSupport"),
    // Runs one capability in a process of its own, so tests can give it other credentials or namespaces.
    .executableTarget(
        name: "capability-probe",
        dependencies: ["Capabilities", "LinuxBackends", "Locking", "CLinuxSupport", "CSeccompRefusals"],
        path: "Tests/CapabilityProbe"),
    // Seccomp filters that make this kernel behave as an older one (no SO_PEERPIDFD) or a sandbox
    // (no capget), for the probe's tests of those paths: never linked into a shipped binary.
    .target(name: "CSeccompRefusals", path: "Tests/CSeccompRefusals"),
    .testTarget(
        name: "ConfigurationFilesTests", dependencies: ["ConfigurationFiles", "Locking", "Plumbing", "TestSupport"]),
    .testTarget(name: "PlumbingTests", dependencies: ["Plumbing", "Locking", "TestSupport"]),
    .testTarget(
        name: "ProcedureCoreTests",
        dependencies: [
            "ProcedureCore", "TestSupport", "Locking", "HeapUsage", .product(name: "Logging", package: "swift-log"),
        ]),
    .testTarget(name: "CapabilityTestingTests", dependencies: ["CapabilityTesting", "Capabilities"]),
    .testTarget(
        name: "CapabilitiesTests", dependencies: ["Capabilities", "CapabilityTesting", "TestSupport", "Locking"]),
    .testTarget(
        name: "FeatureFlagsTests",
        dependencies: [
            "FeatureFlags", "OpenFeatureIsolation", "ConfigurationFiles", "CapabilityTesting", "TestSupport", "Locking",
            .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            .product(name: "ServiceContextModule", package: "swift-service-context"),
        ]),
    .testTarget(
        name: "LinuxBackendsTests",
        dependencies: [
            "LinuxPolicy", "LinuxBackends", "Capabilities", "FeatureFlags", "ProcedureCore", "TestSupport",
            "CLinuxSupport", "Locking", "Plumbing", "capability-probe",
            .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
    .testTarget(
        name: "LinuxPolicyTests",
        dependencies: ["LinuxPolicy", "Capabilities", "CLinuxSupport", "Locking", "TestSupport"]),
    .testTarget(
        name: "RouteGatesTests",
        dependencies: ["RouteGates", "CapabilityPolicy", "LinuxPolicy", "LinuxBackends", "FeatureFlags", "TestSupport"]),
    .testTarget(
        name: "RemoteFlagsTests",
        dependencies: [
            "RemoteFlags", "FeatureFlags", "ConfigurationFiles", "CapabilityPolicy", "TestSupport", "Locking",
        ]),
    .testTarget(
        name: "CapabilityPolicyTests",
        dependencies: [
            "LinuxPolicy", "CapabilityPolicy", "ConfigurationFiles", "Capabilities", "FeatureFlags", "LinuxBackends",
            "ProcedureCore", "TestSupport",
            .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
        ]),
    .testTarget(
        name: "CapctlTests",
        dependencies: [
            "TestSupport", "CLinuxSupport", "capctl", "capctl-flag-source",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
    // The accessor generator as the build plugin runs it: the built binary, its output compiled.
    .testTarget(name: "FlagAccessorGeneratorTests", dependencies: ["TestSupport", "flag-accessor-generator"]),
    .testTarget(
        name: "DownloadWorkflowTests",
        dependencies: [
            "DownloadWorkflowKit", "ProcedureCore", "TestSupport", "CLinuxSupport", "Locking", "download-workflow",
        ]),
    .testTarget(name: "GatedServiceTests", dependencies: ["TestSupport", "gated-daemon", "gated-client"]),
    // capctld as a system daemon, driven by a Python varlink client (its Client/ folder).
    // The varlink library alone: calls, replies and errors over real sockets, and
    // org.varlink.certification against the Python varlink package, as client and as server.
    .testTarget(name: "VarlinkTests", dependencies: ["TestSupport", "Varlink", "ConfigurationFiles"]),
    .testTarget(
        name: "DecisionServiceTests",
        dependencies: [
            "TestSupport", "capctld", "capctl", "capctl-flag-source", "capability-probe", "Varlink", "DecisionService", "LinuxPolicy",
            "CapabilityPolicy", "ProcedureCore",
        ],
        exclude: ["Client"]),
]

let package = Package(
    name: "swift-capabilities",
    products: [
        .library(name: "ProcedureCore", targets: ["ProcedureCore"]),
        .library(name: "Capabilities", targets: ["Capabilities"]),
        .library(name: "CapabilityTesting", targets: ["CapabilityTesting"]),
        .library(name: "FeatureFlags", targets: ["FeatureFlags"]),
        .library(name: "OpenFeatureIsolation", targets: ["OpenFeatureIsolation"]),
        .library(name: "LinuxBackends", targets: ["LinuxBackends"]),
        .library(name: "LinuxPolicy", targets: ["LinuxPolicy"]),
        .library(name: "CapabilityPolicy", targets: ["CapabilityPolicy"]),
        .library(name: "ConfigurationFiles", targets: ["ConfigurationFiles"]),
        .library(name: "RemoteFlags", targets: ["RemoteFlags"]),
        .library(name: "Varlink", targets: ["Varlink"]),
        .library(name: "DecisionService", targets: ["DecisionService"]),
        .library(name: "RouteGates", targets: ["RouteGates"]),
        .library(name: "HummingbirdGates", targets: ["HummingbirdGates"]),
        .library(name: "VaporGates", targets: ["VaporGates"]),
        .executable(name: "capctl", targets: ["capctl"]),
        .executable(name: "capctld", targets: ["capctld"]),
        .plugin(name: "GenerateFlagAccessors", targets: ["GenerateFlagAccessors"]),
        .plugin(name: "ValidatePolicy", targets: ["ValidatePolicy"]),
    ],
    // The web frameworks' middleware are built only when a package asks for them by trait:
    // `.package(url: ..., from: ..., traits: ["Hummingbird"])`. Neither is fetched otherwise.
    traits: [
        .trait(name: "Hummingbird", description: "HummingbirdGates: route gates for Hummingbird 2 and HummingbirdAuth"),
        .trait(name: "Vapor", description: "VaporGates: route gates for Vapor 4"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // File descriptors and errno as types, so a descriptor is closed on every path (Docs/Architecture.md).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Running as a service: ServiceGroup's graceful shutdown (capctld, and any service that puts
        // the policy store, flag store or listener in its own group), and decisions as metrics.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Decisions as spans (a gate per span, flags as OpenTelemetry's feature_flag events); no
        // cost without a tracer bootstrapped.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-service-context", from: "1.5.1"),
        // capctld's metrics backend: what `org.capctl.gates.Metrics` returns, in Prometheus's text format.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `swift package generate-documentation` (Scripts/check-docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: libraryTargets + cTargets + toolTargets + exampleTargets + measuringTargets + testTargets,
    swiftLanguageModes: [.v6]
)

// Every Swift target, written once: dependencies are imported internally unless a file says
// `public import`, so no module re-exports another by accident. Added to a target's own settings,
// not in their place (a target's settings were silently dropped before).
let cTargetNames = Set(cTargets.map(\.name))
for target in package.targets where target.type != .plugin && !cTargetNames.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("InternalImportsByDefault")]
}
// The package's size (issue 41: at most 20 MB installed): capctl's command code and the daemon's and
// helper's processes are optimized for size; none is on a hot path, and none is a library product
// (another package cannot build unsafe flags).
for target in package.targets where ["capctl", "CapctlDaemon", "FlagSourceHelper"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Osize"], .when(configuration: .release))]
}
// `swift package dump-symbol-graph` and the documentation plugin build with every trait enabled,
// whatever `--traits` says: the web frameworks and a second copy of every module with them. The
// documentation checks (Scripts/check-docs, check-doc-coverage) set CAPCTL_WITHOUT_WEB_TRAITS=1 and
// read this package without the web middleware, which they do not document here (Docs/WebServices.md
// does; Scripts/test-web builds them), so their build is the core's own, shared with the tests'.
if Context.environment["CAPCTL_WITHOUT_WEB_TRAITS"] == "1" {
    let web: Set = ["HummingbirdGates", "VaporGates"]
    package.traits = []
    package.targets.removeAll { web.contains($0.name) }
    package.products.removeAll { web.contains($0.name) }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return ["hummingbird", "hummingbird-auth", "vapor"].contains { location.hasSuffix("/" + $0) }
    }
}
// SwiftPM's test discovery on Linux reads the index store, but only the test modules' records.
// Scripts/test builds without the index store (indexing every module costs a fifth of a debug
// build) and names in CAPCTL_TEST_INDEX_STORE the store SwiftPM reads, where only the test modules
// are indexed.
if let store = Context.environment["CAPCTL_TEST_INDEX_STORE"] {
    for target in package.targets where target.type == .test {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-index-store-path", store])]
    }
}
