import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `platformd scaffold plugin NAME` on a copy of the package's manifest, registry and example
/// plugin: the files it writes and the two lines it adds. What it writes is the example with its
/// names replaced and its version history left out (whole lines the example marks: two arguments
/// of its flow's init and a suite of its tests), and the example itself (`Examples/Tailwag`, the
/// `Tailwag` and `TailwagTests` targets) is built and tested by every `swift test`: that, and the
/// scaffolded plugin type-checked against the built PlatformCore, is how the scaffold's output is
/// known to build and pass without building a second package here. (The name is one no app would
/// take, so the suite stays green in a package where the scaffold has already been used.)
@Suite("platformd scaffold")
struct ScaffoldTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let written = [
        "Sources/Plugins/ScaffoldProbe/ScaffoldProbePlugin.swift", "Tests/ScaffoldProbeTests/ScaffoldProbeFlowTests.swift", "Docs/plugins/scaffoldprobe.md",
    ]
    static let example = [
        "Sources/Plugins/Tailwag/TailwagPlugin.swift", "Tests/TailwagTests/TailwagFlowTests.swift", "Docs/plugins/tailwag.md",
    ]

    /// A package root with what the scaffold reads and edits.
    func packageCopy(in directory: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: directory.appendingPathComponent("Sources/platformd"), withIntermediateDirectories: true)
        for path in ["Package.swift", "Sources/platformd/RegisteredPlugins.swift", "Examples"] {
            try files.copyItem(at: Self.root.appendingPathComponent(path), to: directory.appendingPathComponent(path))
        }
    }

    func text(_ directory: URL, _ path: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
    }

    /// The example's text as a new plugin has it: without the lines from each
    /// `// scaffold-omit-begin` line to the next `// scaffold-omit-end` line (the example's
    /// version history), and with its names replaced.
    static func scaffolded(_ example: String) -> String {
        example.replacing(#/\n[ \t]*// scaffold-omit-begin[^\n]*\n(?:[^\n]*\n)*?[ \t]*// scaffold-omit-end[^\n]*/#, with: "")
            .replacingOccurrences(of: "Tailwag", with: "ScaffoldProbe").replacingOccurrences(of: "tailwag", with: "scaffoldprobe")
    }

    func scaffoldProbe(in directory: URL) async throws {
        try await PlatformdProcess.with(["scaffold", "plugin", "ScaffoldProbe", "--root", directory.path]) { process in
            let exit = try await process.waitForExit()
            #expect(exit.status == 0, "\(process.stderrText)")
        }
    }

    @Test func aPluginIsWrittenFromTheExampleAndRegisteredInOneLineEach() async throws {
        try await withTemporaryDirectory { directory in
            try packageCopy(in: directory)
            let before = try text(directory, "Package.swift")

            try await scaffoldProbe(in: directory)
            let manifest = try text(directory, "Package.swift")
            // Added last: the plugins already there keep their order (and the first stays first).
            let pluginsLine = try #require(manifest.split(separator: "\n").first { $0.hasPrefix("let plugins = [") })
            #expect(pluginsLine.hasSuffix(#", "ScaffoldProbe"]"#), "\(pluginsLine)")
            let beforeLine = try #require(before.split(separator: "\n").first { $0.hasPrefix("let plugins = [") })
            #expect(pluginsLine == beforeLine.dropLast() + #", "ScaffoldProbe"]"#)
            #expect(manifest.split(separator: "\n").count == before.split(separator: "\n").count)
            let registry = try text(directory, "Sources/platformd/RegisteredPlugins.swift")
            #expect(registry.contains("\nimport ScaffoldProbe\n"))
            #expect(registry.contains("        ScaffoldProbePlugin.registration,\n    ]"), "\(registry)")

            for (written, example) in zip(Self.written, Self.example) {
                let generated = try text(directory, written)
                let original = try text(Self.root.appendingPathComponent("Examples/Tailwag"), example)
                #expect(generated == Self.scaffolded(original))
                #expect(!generated.lowercased().contains("tailwag"), "\(written) still names the example")
            }
            let source = try text(directory, Self.written[0])
            #expect(source.contains("public struct ScaffoldProbePlugin: OnboardingPlugin"))
            #expect(source.contains(#"defaultTenant: "scaffoldprobe""#))
            let page = try text(directory, Self.written[2])
            let diagram = try #require(page.components(separatedBy: "```mermaid\n").last?.components(separatedBy: "```").first)
            _ = try MermaidChecker.check(diagram.trimmingCharacters(in: .whitespacesAndNewlines)).get()

            // A second run refuses to overwrite anything.
            try await PlatformdProcess.with(["scaffold", "plugin", "ScaffoldProbe", "--root", directory.path]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status != 0)
                #expect(process.stderrText.contains("exists already"))
            }
            #expect(try text(directory, "Package.swift") == manifest)
        }
    }

    /// The example's flow is at version 3, with a migration and a test of it, to show how a flow
    /// changes; a new plugin's flow starts at version 1 (the default) with nothing to migrate.
    @Test func aNewPluginStartsAtVersionOneWithNoMigrations() async throws {
        try await withTemporaryDirectory { directory in
            try packageCopy(in: directory)
            try await scaffoldProbe(in: directory)

            let source = try text(directory, Self.written[0])
            #expect(!source.contains(#"version: "3""#))
            #expect(!source.contains("version:"), "the flow takes the default version, 1")
            #expect(!source.contains("migrations"))
            #expect(!source.contains("FlowMigration"))
            #expect(source.contains("steps: [WelcomeStep(), RoleStep(), AreaStep(), review], completion: AccountCompletion(),\n            )"))
            let tests = try text(directory, Self.written[1])
            #expect(!tests.contains("VersionTests"))
            #expect(!tests.contains("flowVersion"))
            #expect(!tests.contains("engine.move") && !tests.contains(".version"))
            #expect(!tests.lowercased().contains("migrat"))
            #expect(tests.contains("@Suite struct ScaffoldProbeFlowTests"), "the flow's own tests stay")
            for path in Self.written {
                #expect(!(try text(directory, path)).contains("scaffold-omit"), "\(path) keeps a marker")
            }

            // The example itself keeps its version history: it is the reference for changing a flow.
            let example = Self.root.appendingPathComponent("Examples/Tailwag")
            #expect(try text(example, Self.example[0]).contains(#"version: "3","#))
            #expect(try text(example, Self.example[0]).contains("migrations: [FlowMigration(from: \"1\""))
            #expect(try text(example, Self.example[1]).contains("@Suite struct TailwagVersionTests"))
        }
    }

    /// Where `swift build` put the package's modules, beside the platformd it built (nil in a
    /// build laid out otherwise).
    static let builtModules: URL? = PlatformdProcess.binaryURL.flatMap { binary in
        let bin = binary.deletingLastPathComponent()
        return [bin.appendingPathComponent("Modules"), bin].first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("PlatformCore.swiftmodule").path)
        }
    }

    /// The example is built with the package; what the scaffold leaves out of it must leave a
    /// plugin that still compiles (the flow's init without its version and migrations), checked
    /// against PlatformCore as built. The scaffolded tests are the example's less a whole suite.
    @Test(.enabled(if: builtModules != nil, "needs the modules swift build made"))
    func theNewPluginTypeChecks() async throws {
        try await withTemporaryDirectory { directory in
            try packageCopy(in: directory)
            try await scaffoldProbe(in: directory)
            let modules = try #require(Self.builtModules)
            let source = directory.appendingPathComponent(Self.written[0]).path
            let compiler = try await ChildProcess.run(
                "/usr/bin/env",
                ["swiftc", "-typecheck", "-parse-as-library", "-swift-version", "6", "-module-name", "ScaffoldProbe", "-I", modules.path, source])
            #expect(compiler.status == 0, "\(compiler.output)")
        }
    }

    @Test func theExamplesOwnNameIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            try packageCopy(in: directory)
            try await PlatformdProcess.with(["scaffold", "plugin", "Tailwag", "--tenant", "tailwag2", "--root", directory.path]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status != 0)
                #expect(process.stderrText.contains("names Tailwag already"))
            }
        }
    }

    @Test func aBadNameIsRefused() async throws {
        try await PlatformdProcess.with(["scaffold", "plugin", "paw-pal"]) { process in
            let exit = try await process.waitForExit()
            #expect(exit.status != 0)
            #expect(process.stderrText.contains("UpperCamelCase"))
        }
    }
}
