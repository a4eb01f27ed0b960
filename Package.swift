// swift-tools-version: 6.1
import PackageDescription

/// Every Swift target: dependencies are imported internally unless a file says `public import`,
/// so no module re-exports another by accident.
let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("InternalImportsByDefault")]

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
        .executable(name: "capctl", targets: ["capctl"]),
        .plugin(name: "GenerateFlagAccessors", targets: ["GenerateFlagAccessors"]),
        .plugin(name: "ValidatePolicy", targets: ["ValidatePolicy"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // File descriptors and errno as types, so a descriptor is closed on every path (Docs/Architecture.md).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // `swift package generate-documentation` (Scripts/check-docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The operation core: procedures, queues, conditions, exclusivity. Knows nothing of gating.
        .target(
            name: "ProcedureCore",
            dependencies: [
                "CPlatform", "Locking", .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: swiftSettings
        ),
        // The operating system services the portable modules need (processor count, a per-thread marker).
        .target(name: "CPlatform"),
        // The one lock every module uses: the standard library's Mutex, or a pthread mutex that
        // Thread Sanitizer can see in builds with -DTSAN_VISIBLE_LOCKS (Scripts/sanitize).
        .target(name: "Locking", swiftSettings: swiftSettings),
        // Package-internal plumbing the modules share, not a product: one event broadcast, one reload
        // rule for configuration, one way to run blocking calls off Swift's cooperative pool, and the
        // descriptor options swift-system lacks.
        .target(
            name: "Plumbing",
            dependencies: ["Locking", "CPlatform", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: swiftSettings),
        // The gating layer: capabilities, statuses, feature flags.
        .target(name: "Capabilities", dependencies: ["CPlatform", "ProcedureCore", "Locking", "Plumbing"], swiftSettings: swiftSettings),
        // Test doubles for code that gates on capabilities: a scripted capability, a manual clock.
        .target(name: "CapabilityTesting", dependencies: ["Capabilities", "Locking"], swiftSettings: swiftSettings),
        // Configuration files as every reader needs them: JSON and YAML documents with positions,
        // one located error type, the trusted file reader, and directory watching.
        .target(
            name: "ConfigurationFiles",
            dependencies: ["CLinuxSupport", "Locking", "Plumbing", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: swiftSettings
        ),
        // Linux backends: PAM, polkit, filesystem, network, process capabilities, users and groups.
        // It supplies the flag evaluation context of this host and registers the policy kinds of these backends.
        .target(
            name: "LinuxBackends",
            dependencies: [
                "Capabilities", "ConfigurationFiles", "CLinuxSupport", "CPAM", "CSystemdBus", "Locking", "Plumbing",
                .product(name: "SystemPackage", package: "swift-system"),
            ], swiftSettings: swiftSettings
        ),
        // The Linux backends in policies and flags: the policy kinds of LinuxBackends' capabilities,
        // the flag evaluation context of this host, the audit trail of gate decisions, and serving
        // a client's request on a gate. The one module that joins the backends to the policy layer.
        .target(
            name: "LinuxPolicy",
            dependencies: [
                "LinuxBackends", "Capabilities", "CapabilityPolicy", "FeatureFlags", "ConfigurationFiles", "CLinuxSupport",
                "Locking", "ProcedureCore", .product(name: "SystemPackage", package: "swift-system"),
            ], swiftSettings: swiftSettings
        ),
        // Kernel headers (netlink) for LinuxBackends.
        .target(name: "CLinuxSupport"),
        // The commit a release build was made from (`capctl --version`), written by Scripts/build-deb.
        .target(name: "CBuildInfo"),
        // Linux-PAM's declarations for loading libpam at run time; checked against the real header when present.
        .target(name: "CPAM"),
        // sd-bus's declarations (libsystemd) for loading it at run time: the D-Bus client of the polkit backend.
        .target(name: "CSystemdBus"),
        // Feature flags from flagd-format files (JSON or YAML), as capabilities and conditions.
        .target(
            name: "FeatureFlags",
            dependencies: [
                "Capabilities", "ProcedureCore", "ConfigurationFiles", "Locking", "Plumbing",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // OpenFeature's isolated API instances (1.8): the factory, apart from the singleton on purpose.
        .target(name: "OpenFeatureIsolation", dependencies: ["FeatureFlags"], swiftSettings: swiftSettings),
        // Flags from a central service: flagd's HTTP sync as a flag source, and an OFREP provider.
        // The only module that speaks HTTP, through the system's libcurl (loaded at run time, as libpam
        // is: TLS and certificate authorities from Debian, with its security updates); the core and the
        // file-based modules do not.
        .target(
            name: "RemoteFlags",
            dependencies: [
                "FeatureFlags", "Capabilities", "ConfigurationFiles", "Locking", "Plumbing", "CCurl",
                .product(name: "SystemPackage", package: "swift-system"),
            ], swiftSettings: swiftSettings
        ),
        // libcurl's easy interface as function pointer types, for dlopen (checked against curl/curl.h when installed).
        .target(name: "CCurl"),
        // Policy files: layered search paths, parsing, gates.
        .target(
            name: "CapabilityPolicy",
            dependencies: ["Capabilities", "ConfigurationFiles", "FeatureFlags", "ProcedureCore", "Plumbing"],
            swiftSettings: swiftSettings
        ),
        // `capctl`: shows, checks, explains and uses capabilities, flags and gates. Its tests run the
        // built binary, as administrators do.
        .executableTarget(
            name: "capctl",
            dependencies: ["LinuxPolicy", 
                "CapabilityPolicy", "ConfigurationFiles", "LinuxBackends", "Capabilities", "FeatureFlags", "ProcedureCore",
                "CLinuxSupport", "CPlatform", "CBuildInfo", "Locking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // capctl's helper for flag services: the one process of capctl's that links an HTTP client
        // (RemoteFlags), started only for a policy that names a service.
        .executableTarget(
            name: "capctl-flag-source",
            dependencies: ["RemoteFlags", "FeatureFlags", "ConfigurationFiles", "Locking", "CLinuxSupport"],
            swiftSettings: swiftSettings),
        // The seeds' download workflow as a gated command (Examples/DownloadWorkflow, Docs/Example.md).
        .target(
            name: "DownloadWorkflowKit",
            dependencies: ["LinuxPolicy", "ProcedureCore", "Capabilities", "FeatureFlags", "LinuxBackends"],
            path: "Examples/DownloadWorkflow/Kit", swiftSettings: swiftSettings),
        .executableTarget(
            name: "download-workflow",
            dependencies: ["DownloadWorkflowKit", "ProcedureCore", "Capabilities", "FeatureFlags", "LinuxBackends"],
            path: "Examples/DownloadWorkflow/Command", swiftSettings: swiftSettings),
        // A root service that gates each client's request on a policy gate decided for that client,
        // and its client (Examples/GatedService, Docs/Example.md).
        .executableTarget(
            name: "gated-daemon", dependencies: ["LinuxPolicy", "LinuxBackends", "CapabilityPolicy", "ProcedureCore"],
            path: "Examples/GatedService/Daemon", swiftSettings: swiftSettings),
        .executableTarget(name: "gated-client", path: "Examples/GatedService/Client", swiftSettings: swiftSettings),
        .executableTarget(
            name: "core-bench",
            dependencies: ["LinuxPolicy", 
                "ProcedureCore", "Capabilities", "CapabilityTesting", "FeatureFlags", "LinuxBackends", "HeapUsage",
                "RemoteFlags", "CLinuxSupport", "TestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/CoreBench", swiftSettings: swiftSettings
        ),
        .target(name: "HeapUsage", path: "Benchmarks/HeapUsage", swiftSettings: swiftSettings),
        // Fuzz targets for the parsers and the targeting evaluator (Docs/Security.md): libFuzzer
        // entry points when built with `--sanitize fuzzer -Xswiftc -DFUZZING`, corpus replayers otherwise.
        .target(name: "FuzzSupport", dependencies: ["FeatureFlags", "ConfigurationFiles"], path: "Fuzz/Support", swiftSettings: swiftSettings),
        .executableTarget(
            name: "PolicyFuzzer", dependencies: ["LinuxPolicy", "CapabilityPolicy", "LinuxBackends", "FuzzSupport"],
            path: "Fuzz/PolicyFuzzer", swiftSettings: swiftSettings),
        .executableTarget(name: "FlagFuzzer", dependencies: ["FeatureFlags", "FuzzSupport"], path: "Fuzz/FlagFuzzer", swiftSettings: swiftSettings),
        .executableTarget(
            name: "TargetingFuzzer", dependencies: ["FeatureFlags", "FuzzSupport"], path: "Fuzz/TargetingFuzzer", swiftSettings: swiftSettings),
        // Typed names for a target's flag and policy files (FlagKeys, GateNames, CapabilityNames).
        .plugin(
            name: "GenerateFlagAccessors", capability: .buildTool(),
            dependencies: ["flag-accessor-generator"], path: "Plugins/GenerateFlagAccessors"),
        .executableTarget(
            name: "flag-accessor-generator",
            dependencies: ["LinuxPolicy", "FeatureFlags", "CapabilityPolicy", "ConfigurationFiles", "LinuxBackends"],
            swiftSettings: swiftSettings),
        // `swift package validate-policy`: capctl validate over the package's policy and flag files, for CI.
        .plugin(
            name: "ValidatePolicy",
            capability: .command(
                intent: .custom(
                    verb: "validate-policy", description: "Check every policy and flag file in the package.")),
            dependencies: ["capctl"], path: "Plugins/ValidatePolicy"),
        .plugin(
            name: "CoreBenchPlugin",
            capability: .command(
                intent: .custom(verb: "core-bench", description: "Build and run the operation core benchmark.")),
            path: "Plugins/CoreBenchPlugin"
        ),
        // Helpers shared by every test target: latches, counters, event logs.
        .target(
            name: "TestSupport",
            dependencies: [
                "ProcedureCore", "FeatureFlags", "ConfigurationFiles", "CLinuxSupport", "Locking",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport", swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConfigurationFilesTests", dependencies: ["ConfigurationFiles", "Locking", "Plumbing", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "PlumbingTests", dependencies: ["Plumbing", "Locking", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ProcedureCoreTests",
            dependencies: [
                "ProcedureCore", "TestSupport", "Locking", "HeapUsage", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CapabilityTestingTests", dependencies: ["CapabilityTesting", "Capabilities"],
            swiftSettings: swiftSettings),
        .testTarget(name: "CapabilitiesTests", dependencies: ["Capabilities", "CapabilityTesting", "TestSupport", "Locking"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FeatureFlagsTests", dependencies: ["FeatureFlags", "OpenFeatureIsolation", "ConfigurationFiles", "CapabilityTesting", "TestSupport", "Locking"], swiftSettings: swiftSettings),
        // Runs one capability in a process of its own, so tests can give it other credentials or namespaces.
        .executableTarget(
            name: "capability-probe", dependencies: ["Capabilities", "LinuxBackends", "Locking", "CLinuxSupport"], path: "Tests/CapabilityProbe", swiftSettings: swiftSettings),
        .testTarget(
            name: "LinuxBackendsTests",
            dependencies: ["LinuxPolicy", 
                "LinuxBackends", "Capabilities", "FeatureFlags", "ProcedureCore", "TestSupport", "CLinuxSupport",
                "Locking", "capability-probe",
            ], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LinuxPolicyTests", dependencies: ["LinuxPolicy", "CLinuxSupport", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "RemoteFlagsTests",
            dependencies: [
                "RemoteFlags", "FeatureFlags", "ConfigurationFiles", "CapabilityPolicy", "TestSupport", "Locking",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "DownloadWorkflowTests",
            dependencies: ["DownloadWorkflowKit", "ProcedureCore", "TestSupport", "CLinuxSupport", "Locking", "download-workflow"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CapctlTests",
            dependencies: [
                "TestSupport", "CLinuxSupport", "capctl", "capctl-flag-source",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], swiftSettings: swiftSettings),
        .testTarget(
            name: "GatedServiceTests", dependencies: ["TestSupport", "gated-daemon", "gated-client"],
            swiftSettings: swiftSettings),
        // The accessor generator as the build plugin runs it: the built binary, its output compiled.
        .testTarget(
            name: "FlagAccessorGeneratorTests", dependencies: ["TestSupport", "flag-accessor-generator"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CapabilityPolicyTests",
            dependencies: ["LinuxPolicy", 
                "CapabilityPolicy", "ConfigurationFiles", "Capabilities", "FeatureFlags", "LinuxBackends", "ProcedureCore",
                "TestSupport",
            ], swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
