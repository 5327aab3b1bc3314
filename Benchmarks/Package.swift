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
    ]
)
