// swift-tools-version: 6.1
import PackageDescription

// A web service whose routes are gated by a policy file, in Hummingbird 2 and in Vapor 4
// (README.md), and the route gates' tests over real requests in both frameworks. A package of its
// own, which asks the framework's package for its web traits: the core's build never compiles a
// web framework. Scripts/test builds and runs it in a lane beside the others (.build-web).
let package = Package(
    name: "gated-web-service",
    dependencies: [
        // In your own package: .package(url: "https://github.com/OWNER/swift-capabilities", from: "...",
        // traits: ["Hummingbird"]).
        .package(name: "swift-capabilities", path: "../..", traits: ["Hummingbird", "Vapor"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        // Spans exported over OTLP/HTTP (its gRPC exporter left out: another stack to build).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "gated-web-service",
            dependencies: [
                .product(name: "HummingbirdGates", package: "swift-capabilities"),
                .product(name: "RouteGates", package: "swift-capabilities"),
                .product(name: "CapabilityPolicy", package: "swift-capabilities"),
                .product(name: "LinuxPolicy", package: "swift-capabilities"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "gated-web-service-vapor",
            dependencies: [
                .product(name: "VaporGates", package: "swift-capabilities"),
                .product(name: "RouteGates", package: "swift-capabilities"),
                .product(name: "CapabilityPolicy", package: "swift-capabilities"),
                .product(name: "LinuxPolicy", package: "swift-capabilities"),
                .product(name: "Vapor", package: "vapor"),
            ]),
        // OpenFeature in a Hummingbird service with FeatureFlags alone: flags evaluated per request.
        .target(
            name: "FlagService",
            dependencies: [
                .product(name: "FeatureFlags", package: "swift-capabilities"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .executableTarget(
            name: "flag-service",
            dependencies: [
                "FlagService",
                .product(name: "FeatureFlags", package: "swift-capabilities"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        // The documentation's samples (Docs/WebServices.md, the middleware's comments), compiled as
        // shown: Scripts/test-web writes each target's Samples.swift beside its Prelude.swift.
        .target(
            name: "HummingbirdSamples",
            dependencies: [
                .product(name: "HummingbirdGates", package: "swift-capabilities"),
                .product(name: "RouteGates", package: "swift-capabilities"),
                .product(name: "CapabilityPolicy", package: "swift-capabilities"),
                .product(name: "LinuxPolicy", package: "swift-capabilities"),
                .product(name: "LinuxBackends", package: "swift-capabilities"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            path: "Tests/HummingbirdSamples"),
        .target(
            name: "VaporSamples",
            dependencies: [
                .product(name: "VaporGates", package: "swift-capabilities"),
                .product(name: "RouteGates", package: "swift-capabilities"),
                .product(name: "CapabilityPolicy", package: "swift-capabilities"),
                .product(name: "LinuxPolicy", package: "swift-capabilities"),
                .product(name: "LinuxBackends", package: "swift-capabilities"),
                .product(name: "Vapor", package: "vapor"),
            ],
            path: "Tests/VaporSamples"),
        // What both frameworks' tests share: a policy on disk, a PAM service of the test's own.
        .target(
            name: "WebTestSupport",
            dependencies: [
                .product(name: "CapabilityPolicy", package: "swift-capabilities"),
                .product(name: "LinuxPolicy", package: "swift-capabilities"),
            ],
            path: "Tests/WebTestSupport"),
        .testTarget(
            name: "HummingbirdGatesTests",
            dependencies: [
                "WebTestSupport",
                .product(name: "HummingbirdGates", package: "swift-capabilities"),
                .product(name: "RouteGates", package: "swift-capabilities"),
                .product(name: "CapabilityPolicy", package: "swift-capabilities"),
                .product(name: "LinuxPolicy", package: "swift-capabilities"),
                .product(name: "LinuxBackends", package: "swift-capabilities"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "FlagServiceTests",
            dependencies: [
                "FlagService",
                .product(name: "FeatureFlags", package: "swift-capabilities"),
                .product(name: "OpenFeatureIsolation", package: "swift-capabilities"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "VaporGatesTests",
            dependencies: [
                "WebTestSupport",
                .product(name: "VaporGates", package: "swift-capabilities"),
                .product(name: "RouteGates", package: "swift-capabilities"),
                .product(name: "CapabilityPolicy", package: "swift-capabilities"),
                .product(name: "LinuxPolicy", package: "swift-capabilities"),
                .product(name: "LinuxBackends", package: "swift-capabilities"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// SwiftPM's test discovery on Linux reads the index store, but only the test modules' records.
// Scripts/test-web builds without the index store (indexing every module, the web frameworks
// included, costs a fifth of the build) and names in CAPCTL_TEST_INDEX_STORE the store SwiftPM
// reads, where only the test modules are indexed.
if let store = Context.environment["CAPCTL_TEST_INDEX_STORE"] {
    for target in package.targets where target.type == .test {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-index-store-path", store])]
    }
}
