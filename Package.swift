// swift-tools-version: 6.1
import PackageDescription

let plugins = ["StatLocker", "TeePals", "AirFit", "AFLFantasy"]

/// A plugin's data (a goals library, a gazetteer) lives in its Resources folder.
let pluginsWithResources: Set<String> = ["StatLocker", "TeePals"]

/// Plugins whose texts are translated: a String Catalog at Localization/Localizable.xcstrings,
/// copied as it is (a processed catalog would be compiled to .strings files on Apple platforms).
let pluginsWithCatalogs: Set<String> = ["StatLocker", "TeePals", "AirFit"]

/// Plugin test targets with a Scripts folder (Python clients their tests run).
let pluginTestsWithScripts: Set<String> = ["StatLocker"]

let package = Package(
    name: "platformd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "platformd", targets: ["platformd"]),
        // The load generator (`platformd bench` runs it): drives a `platformd serve` it starts.
        .executable(name: "platformd-bench", targets: ["PlatformBench"]),
        .library(name: "PlatformCore", targets: ["PlatformCore"]),
        .library(name: "PlatformStorage", targets: ["PlatformStorage"]),
        .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
        .library(name: "PlatformServer", targets: ["PlatformServer"]),
        .library(name: "PlatformTransports", targets: ["PlatformTransports"]),
        .library(name: "PlatformProtocol", targets: ["PlatformProtocol"]),
        .library(name: "PlatformClient", targets: ["PlatformClient"]),
        // What plugin authors test with: the flow driver, the test clock, view accessors, the
        // schema validator every reply is checked against, the Mermaid checker.
        .library(name: "PlatformTesting", targets: ["PlatformTesting"]),
        // Two plugins as libraries, so the Benchmarks package (which depends on this one by path)
        // can drive StatLocker's engine and TeePals' city search; the server links them as targets.
        .library(name: "StatLocker", targets: ["StatLocker"]),
        .library(name: "TeePals", targets: ["TeePals"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Atomics at a memory location of our own: the credentials counter SQLite's processes share.
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // YAML tenants files (the contract lets `.yaml`/`.yml` files be YAML).
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // HTTP for apps, browsers and assistants (`serve --http`): Hummingbird 2 sits on the SwiftNIO
        // the socket transports already use; its WebSocket upgrade carries the line protocol.
        // ConfigurationSupport and FullFoundation are not needed: traits off.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Metrics through the swift-metrics API (the engine records where its events happen),
        // exposed in Prometheus' text format at /metrics.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Spans per request, carrying an incoming W3C traceparent.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Exports those spans over OTLP/HTTP when an OTEL_EXPORTER_OTLP_* endpoint is set; the
        // gRPC exporter's trait is off (grpc-swift would add minutes to every build).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The wire types: Foundation only, shared by the server, the client and the tests.
        .target(name: "PlatformProtocol"),
        // The Swift client: the wire types and a SwiftNIO transport, nothing of the server.
        .target(
            name: "PlatformClient",
            dependencies: [
                "PlatformProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The plugin API and the pure engine: flows, steps, fields and their rules, copy and its
        // catalogs, the flow engine. What a plugin imports; it links no database, no NIO, no
        // Hummingbird, no metrics and no tracing (`swift package dump-package` shows it).
        .target(
            name: "PlatformCore",
            dependencies: [
                "PlatformProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The core's texts (generic field messages, the MCP text) in the locales it ships.
            resources: [.copy("Localization/Localizable.xcstrings")]
        ),
        // The store's protocols and commit types (sessions, credentials, the outbox), and the
        // threads blocking work runs on: what the server asks of a database, not how one answers.
        .target(
            name: "PlatformStorage",
            dependencies: [
                "PlatformCore", .product(name: "Logging", package: "swift-log"),
                // The commit series both stores record (platformd_store_*).
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The embedded store: SQLite through GRDB (group commit, WAL checkpoints, backup, its bench).
        .target(
            name: "SQLiteStore",
            dependencies: [
                "PlatformCore", "PlatformStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, which GRDB links: the writer's hottest statements bind through it.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The PostgreSQL store: the same store protocols as SQLite, for several hosts on one database.
        .target(
            name: "PostgresStore",
            dependencies: [
                "PlatformCore", "PlatformStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // TLS to PostgreSQL (sslmode), as postgres-nio takes it.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The server without its listeners: the Platform shell over a store, method dispatch,
        // access control and rate limits, MCP, webhook delivery's worker, sweeps, metrics. No NIO.
        .target(
            name: "PlatformServer",
            dependencies: [
                "PlatformCore", "PlatformStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The ways in: stdio, Unix and TCP sockets (SwiftNIO), HTTP with WebSocket and MCP over
        // Streamable HTTP (Hummingbird), the hosted pages and the dashboard, /metrics, OTLP
        // export, and webhook posts (AsyncHTTPClient).
        .target(
            name: "PlatformTransports",
            dependencies: [
                "PlatformCore", "PlatformStorage", "PlatformServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ]
        ),
        .target(
            name: "PlatformTesting",
            dependencies: [
                "PlatformCore", "PlatformStorage", "PlatformServer", "SQLiteStore", "PlatformClient",
                .product(name: "Logging", package: "swift-log"),
                // WebhookReceiver checks signatures independently of the server's code.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Python checkers its helpers run (`Python.checkMCPAnswerSchemas`).
            exclude: ["Scripts"]
        ),
    ]
        + plugins.map { name in
            .target(
                name: name,
                dependencies: ["PlatformCore", .product(name: "Logging", package: "swift-log")]
                    + (name == "TeePals" ? ["TeePalsGazetteer"] : []),
                path: "Sources/Plugins/\(name)",
                resources: (pluginsWithResources.contains(name) ? [.process("Resources")] : [])
                    + (pluginsWithCatalogs.contains(name) ? [.copy("Localization/Localizable.xcstrings")] : [])
            )
        }
        + [
            // TeePals' name folding and the format of its gazetteer index, shared by the plugin and
            // the tool that builds the index, so both fold names the same way. Foundation only.
            .target(name: "TeePalsGazetteer"),
            // Writes Sources/Plugins/TeePals/Resources/gazetteer.bin (scripts/teepals/make_gazetteer.py runs it).
            .executableTarget(name: "teepals-gazetteer", dependencies: ["TeePalsGazetteer"]),
        ]
        + [
            // The ArgumentParser commands: each composes the modules above.
            .executableTarget(
                name: "platformd",
                dependencies: [
                    "PlatformCore", "PlatformStorage", "SQLiteStore", "PostgresStore", "PlatformServer", "PlatformTransports",
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOPosix", package: "swift-nio"),
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                    .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                    .product(name: "Yams", package: "Yams"),
                ] + plugins.map { .byName(name: $0) }
            ),
            // The load generator: a child `platformd serve`, a walk found from the fields it serves
            // (PlatformClient's GenericAnswers), one thread polling every connection.
            .executableTarget(
                name: "PlatformBench",
                dependencies: [
                    "PlatformProtocol", "PlatformClient", "PlatformStorage", "SQLiteStore", "PostgresStore",
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                    .product(name: "Logging", package: "swift-log"),
                ]
            ),
            // Runs the real binaries (the bench and the server it starts); `platformd` is a dependency
            // so the server is built beside the bench.
            .testTarget(
                name: "PlatformBenchTests",
                dependencies: ["PlatformBench", "platformd", "PlatformProtocol", "PlatformTesting"]
            ),
            // The server module in process: parameter reads and their bounds.
            .testTarget(name: "PlatformServerTests", dependencies: ["PlatformServer", "PlatformProtocol"]),
            // The HTTP router in process (HummingbirdTesting): routes and pages without a socket.
            .testTarget(
                name: "PlatformTransportsTests",
                dependencies: [
                    "PlatformTransports", "PlatformServer", "PlatformCore", "PlatformProtocol", "PlatformStorage", "SQLiteStore",
                    .product(name: "HummingbirdTesting", package: "hummingbird"),
                    .product(name: "Prometheus", package: "swift-prometheus"),
                    .product(name: "Logging", package: "swift-log"),
                ]
            ),
            .testTarget(
                name: "PlatformCoreTests",
                dependencies: [
                    "PlatformCore", "PlatformStorage", "SQLiteStore", "PlatformServer", "PlatformTesting", "PostgresStore",
                    .product(name: "GRDB", package: "GRDB.swift"),
                    .product(name: "Logging", package: "swift-log"),
                    // The PostgreSQL statements' parameters, checked byte for byte without a server.
                    .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "NIOCore", package: "swift-nio"),
                ]
            ),
            .testTarget(
                name: "platformdTests",
                dependencies: [
                    "platformd", "PlatformCore", "PlatformStorage", "SQLiteStore", "PlatformServer", "PlatformTransports", "PlatformTesting",
                    .product(name: "Crypto", package: "swift-crypto"),
                    // A database file marked as migrated by a newer binary.
                    .product(name: "GRDB", package: "GRDB.swift"),
                    // The socket transport's line decoder, driven through an EmbeddedChannel.
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOEmbedded", package: "swift-nio"),
                    // HTTP and WebSocket clients for `serve --http`'s tests.
                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                    .product(name: "NIOHTTP1", package: "swift-nio"),
                    .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                ],
                exclude: ["Fixtures", "Scripts"]
            ),
            // A `platformd serve` on a socket for driving through PlatformClient: what PlatformClientTests
            // and each plugin's walk through the client share.
            .target(
                name: "PlatformClientTesting", dependencies: ["PlatformClient", "PlatformProtocol", "PlatformTesting"], path: "Tests/PlatformClientTesting"),
            // Drives the real `platformd` binary (built through the dependency) through the client, on
            // the tenants it lists (PlatformTesting's GenericAnswers answer their steps).
            .testTarget(
                name: "PlatformClientTests",
                dependencies: ["PlatformClient", "PlatformClientTesting", "PlatformProtocol", "PlatformTesting", "platformd"]
            ),
            // The example `platformd scaffold plugin` copies (a branch, a list, a conditional field, a
            // review, a gate after completion): built and tested here so what the scaffold writes is
            // known to build and pass; not registered with the server.
            .target(name: "Tailwag", dependencies: ["PlatformCore"], path: "Examples/Tailwag/Sources/Plugins/Tailwag"),
            .testTarget(
                name: "TailwagTests", dependencies: ["Tailwag", "PlatformCore", "PlatformServer", "PlatformStorage", "SQLiteStore", "PlatformTesting"],
                path: "Examples/Tailwag/Tests/TailwagTests"),
        ]
        + plugins.map { name in
            .testTarget(
                name: "\(name)Tests",
                dependencies: [
                    .byName(name: name), "PlatformCore", "PlatformServer", "PlatformStorage", "SQLiteStore", "PlatformTesting",
                    .product(name: "Logging", package: "swift-log"),
                    // The plugin's walk through the Swift client.
                    "PlatformClient", "PlatformClientTesting", "PlatformProtocol",
                ]
                    + (name == "TeePals" ? ["TeePalsGazetteer"] : [])
                    // AirFit's analyzer through the HTTP client the server hands it (ServerOutboundHTTP).
                    + (name == "AirFit" ? ["PlatformTransports"] : [])
                    // The plugin's walks against the real binary (PlatformTesting's PlatformdProcess) need it built.
                    + ["platformd"],
                exclude: pluginTestsWithScripts.contains(name) ? ["Scripts"] : []
            )
        }
)
