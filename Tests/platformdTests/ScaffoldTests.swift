import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `platformd scaffold plugin NAME` on a copy of the package's manifest, registry and example
/// plugin: the files it writes and the two lines it adds. What it writes is the example with its
/// names replaced, and the example itself (`Examples/Tailwag`, the `Tailwag` and `TailwagTests`
/// targets) is built and tested by every `swift test`: that is how the scaffold's output is known
/// to build and pass without building a second package here. (The name is one no app would take,
/// so the suite stays green in a package where the scaffold has already been used.)
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

    @Test func aPluginIsWrittenFromTheExampleAndRegisteredInOneLineEach() async throws {
        try await withTemporaryDirectory { directory in
            try packageCopy(in: directory)
            let before = try text(directory, "Package.swift")

            try await PlatformdProcess.with(["scaffold", "plugin", "ScaffoldProbe", "--root", directory.path]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0, "\(process.stderrText)")
            }
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
                #expect(
                    generated == original.replacingOccurrences(of: "Tailwag", with: "ScaffoldProbe").replacingOccurrences(of: "tailwag", with: "scaffoldprobe"))
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
