// swift-tools-version: 6.1
import PackageDescription

// A package of its own, so `swift test` at the root never resolves or builds the benchmark
// dependency. It depends on the root package by path.
let package = Package(
    name: "platformd-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "platformd", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Only to silence the plugins' log lines in PlatformBenchmarks; the root package already uses it.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "FramerBenchmarks",
            dependencies: [
                .product(name: "PlatformCore", package: "platformd"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/FramerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The request path in process: the engine's submit, Platform.submit over an in-memory
        // store, a durable store commit with and without concurrency, TeePals' city search,
        // a SessionView encoded to bytes and a request line parsed.
        .executableTarget(
            name: "PlatformBenchmarks",
            dependencies: [
                .product(name: "PlatformCore", package: "platformd"),
                .product(name: "PlatformStorage", package: "platformd"),
                .product(name: "PlatformServer", package: "platformd"),
                .product(name: "SQLiteStore", package: "platformd"),
                .product(name: "StatLocker", package: "platformd"),
                .product(name: "TeePals", package: "platformd"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/PlatformBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
