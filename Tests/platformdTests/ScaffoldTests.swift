import Foundation
import PlatformCore
import PlatformTesting
import Testing

/// `platformd scaffold plugin NAME` on a copy of the package's manifest and registry: the files it
/// writes and the two lines it adds. (That the result builds and passes its own tests was checked
/// by hand on a clone: `swift build && swift test --filter PawPalTests`; a full build is too slow
/// for this suite.)
@Suite("platformd scaffold")
struct ScaffoldTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    @Test func aPluginIsWrittenAndRegisteredInOneLineEach() async throws {
        try await withTemporaryDirectory { directory in
            let files = FileManager.default
            try files.createDirectory(at: directory.appendingPathComponent("Sources/platformd"), withIntermediateDirectories: true)
            try files.createDirectory(at: directory.appendingPathComponent("Docs/plugins"), withIntermediateDirectories: true)
            try files.copyItem(at: Self.root.appendingPathComponent("Package.swift"), to: directory.appendingPathComponent("Package.swift"))
            try files.copyItem(
                at: Self.root.appendingPathComponent("Sources/platformd/RegisteredPlugins.swift"),
                to: directory.appendingPathComponent("Sources/platformd/RegisteredPlugins.swift"))
            let before = try String(contentsOf: directory.appendingPathComponent("Package.swift"), encoding: .utf8)

            try await PlatformdProcess.with(["scaffold", "plugin", "PawPal", "--root", directory.path]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0, "\(process.stderrText)")
            }
            let manifest = try String(contentsOf: directory.appendingPathComponent("Package.swift"), encoding: .utf8)
            #expect(manifest.contains(#"let plugins = ["PawPal", "#))
            #expect(manifest.split(separator: "\n").count == before.split(separator: "\n").count)
            let registry = try String(contentsOf: directory.appendingPathComponent("Sources/platformd/RegisteredPlugins.swift"), encoding: .utf8)
            #expect(registry.contains("import PawPal\n"))
            #expect(registry.contains("        PawPalPlugin.registration,\n"))
            let source = try String(contentsOf: directory.appendingPathComponent("Sources/Plugins/PawPal/PawPalPlugin.swift"), encoding: .utf8)
            #expect(source.contains("public struct PawPalPlugin: OnboardingPlugin"))
            #expect(source.contains(#"defaultTenant: "pawpal""#))
            #expect(files.fileExists(atPath: directory.appendingPathComponent("Tests/PawPalTests/PawPalFlowTests.swift").path))
            let page = try String(contentsOf: directory.appendingPathComponent("Docs/plugins/pawpal.md"), encoding: .utf8)
            let diagram = try #require(page.components(separatedBy: "```mermaid\n").last?.components(separatedBy: "```").first)
            guard case .success = MermaidChecker.check(diagram.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                Issue.record("the page's diagram is not a valid flowchart:\n\(diagram)")
                return
            }

            // A second run refuses to overwrite anything.
            try await PlatformdProcess.with(["scaffold", "plugin", "PawPal", "--root", directory.path]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status != 0)
                #expect(process.stderrText.contains("exists already"))
            }
            #expect(try String(contentsOf: directory.appendingPathComponent("Package.swift"), encoding: .utf8) == manifest)
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
