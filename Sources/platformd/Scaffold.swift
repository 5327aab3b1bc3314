import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports

/// `platformd scaffold plugin NAME`: a new app's plugin module, its registration line, a test
/// target and a docs page, copied from the package's example plugin (`Examples/Tailwag`, which
/// `swift test` builds and tests) with its names replaced, so what it writes builds and passes.
/// The example's flow is at version 3, with a migration and a test of it, to show how a flow
/// changes; a new plugin starts at version 1, so the scaffold leaves those lines out (they are
/// marked in the example: ``ScaffoldExample/omittingMarkedLines(_:in:)``).
struct Scaffold: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the skeleton of a new plugin.",
        subcommands: [Plugin.self])

    struct Plugin: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write Sources/Plugins/NAME, Tests/NAMETests, Docs/plugins/TENANT.md and register NAME.",
            discussion: """
                Run from the package's root (or give --root). Copies the example plugin in Examples/Tailwag \
                (a branch with a list and a conditional field, a review, a completion record, a gate after \
                completion and an editable field), its tests and its docs page, with Tailwag renamed NAME and \
                tailwag renamed TENANT and the example's version history left out (the new flow is at version 1, \
                with no migrations), and adds NAME to Package.swift's plugins and to \
                Sources/platformd/RegisteredPlugins.swift, last (the hosted tenants keep their order). Then: swift build && swift test --filter NAMETests.
                """)

        @Argument(help: "The plugin's name, UpperCamelCase (Gardenly).") var name: String
        @Option(help: "Its default tenant id (default: the name in lowercase).") var tenant: String?
        @Option(help: "The package root.") var root = "."

        var tenantID: String { tenant ?? name.lowercased() }

        func validate() throws {
            guard name.range(of: "^[A-Z][A-Za-z0-9]{1,40}$", options: .regularExpression) != nil else {
                throw ValidationError("NAME must be UpperCamelCase letters and digits, e.g. Gardenly")
            }
            guard TenantsConfiguration.isValidID(tenantID) else {
                throw ValidationError("the tenant id must be 1-63 characters of a-z, 0-9 and -")
            }
        }

        func run() throws {
            let base = URL(fileURLWithPath: root, isDirectory: true)
            let files = FileManager.default
            let example = ScaffoldExample(root: base)
            let copies = try example.files().map { source in
                (source, base.appendingPathComponent(example.renamed(source.relativePath, name: name, tenant: tenantID)))
            }
            for (_, target) in copies where files.fileExists(atPath: target.path) {
                throw CommandRefusal.exit("\(target.path) exists already; nothing was written")
            }
            // Every text is made before anything is written, so a fault in the example writes nothing.
            let texts = try copies.map { source, _ in
                try example.scaffolded(String(contentsOf: source.url, encoding: .utf8), from: source.relativePath, name: name, tenant: tenantID)
            }
            let manifest = base.appendingPathComponent("Package.swift")
            let registry = base.appendingPathComponent("Sources/platformd/RegisteredPlugins.swift")
            var manifestText = try String(contentsOf: manifest, encoding: .utf8)
            var registryText = try String(contentsOf: registry, encoding: .utf8)
            guard !manifestText.contains("\"\(name)\"") else {
                throw CommandRefusal.exit("Package.swift names \(name) already; choose another name")
            }
            // Added last, so the hosted tenants keep their order (platform.info, the README's
            // sample output) and the new app comes after them.
            guard let list = manifestText.range(of: "let plugins = ["),
                let listEnd = manifestText[list.upperBound...].firstIndex(of: "]"),
                !manifestText[list.upperBound..<listEnd].contains("\n")
            else {
                throw CommandRefusal.exit("Package.swift has no one-line `let plugins = [...]` to add \(name) to")
            }
            guard let registrations = registryText.range(of: "static let registrations: [PluginRegistration] = [\n"),
                let registrationsEnd = registryText[registrations.upperBound...].range(of: "\n    ]")
            else {
                throw CommandRefusal.exit("RegisteredPlugins.swift has no registrations list to add \(name) to")
            }
            let empty = manifestText[list.upperBound..<listEnd].trimmingCharacters(in: .whitespaces).isEmpty
            manifestText.insert(contentsOf: (empty ? "" : ", ") + "\"\(name)\"", at: listEnd)
            registryText.insert(contentsOf: "\n        \(name)Plugin.registration,", at: registrationsEnd.lowerBound)
            // Its import after the others.
            let lastImport = registryText.range(of: "\nimport ", options: .backwards).flatMap { found in
                registryText[found.upperBound...].firstIndex(of: "\n")
            }
            if let lastImport {
                registryText.insert(contentsOf: "\nimport \(name)", at: lastImport)
            } else {
                registryText = "import \(name)\n" + registryText
            }

            for ((_, target), text) in zip(copies, texts) {
                try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: target, atomically: true, encoding: .utf8)
                StandardOutput.writeLine("wrote \(target.path.dropFirst(base.path.count).drop { $0 == "/" })")
            }
            try manifestText.write(to: manifest, atomically: true, encoding: .utf8)
            try registryText.write(to: registry, atomically: true, encoding: .utf8)
            StandardOutput.writeLine("added \(name) to Package.swift and Sources/platformd/RegisteredPlugins.swift")
            StandardOutput.writeLine("next: swift build && swift test --filter \(name)Tests")
        }
    }
}

/// The example plugin the scaffold copies: a tree laid out as the package is (Sources/Plugins/Tailwag,
/// Tests/TailwagTests, Docs/plugins/tailwag.md), whose names are replaced as a whole.
struct ScaffoldExample {
    static let name = "Tailwag"
    static let tenant = "tailwag"

    let directory: URL

    init(root: URL) {
        directory = root.appendingPathComponent("Examples/\(Self.name)", isDirectory: true)
    }

    struct File {
        var url: URL
        /// From the example's directory, which stands for the package root.
        var relativePath: String
    }

    func files() throws -> [File] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw CommandRefusal.exit("\(directory.path) is missing: run from the package root or give --root")
        }
        let prefix = directory.standardizedFileURL.path + "/"
        let found = walker.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .map { File(url: $0, relativePath: String($0.standardizedFileURL.path.dropFirst(prefix.count))) }
        guard !found.isEmpty else { throw CommandRefusal.exit("\(directory.path) holds no files") }
        return found.sorted { $0.relativePath < $1.relativePath }
    }

    func renamed(_ text: String, name: String, tenant: String) -> String {
        text.replacingOccurrences(of: Self.name, with: name).replacingOccurrences(of: Self.tenant, with: tenant)
    }

    /// What the scaffold writes for one of the example's files: its marked lines left out, its names replaced.
    func scaffolded(_ text: String, from relativePath: String, name: String, tenant: String) throws -> String {
        renamed(try omittingMarkedLines(text, in: relativePath), name: name, tenant: tenant)
    }

    /// Opens lines of the example a new plugin leaves out: the example's flow is at version 3,
    /// with a migration and a test of it, where a new plugin starts at version 1 with nothing to
    /// migrate. The markers are comments alone on their lines, so edits around them merge as lines.
    static let omitBegin = "// scaffold-omit-begin"
    /// Closes them.
    static let omitEnd = "// scaffold-omit-end"

    /// The text without the lines from each line starting ``omitBegin`` (after its indentation) to
    /// the next starting ``omitEnd``, both included. Refuses a marker out of place: an end with no
    /// begin, a begin inside a block, a block not closed.
    func omittingMarkedLines(_ text: String, in relativePath: String) throws -> String {
        var kept: [Substring] = []
        var openedAt: Int?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.drop { $0 == " " || $0 == "\t" }
            if content.hasPrefix(Self.omitBegin) {
                if let openedAt {
                    throw CommandRefusal.exit(
                        "Examples/\(Self.name)/\(relativePath):\(index + 1): \(Self.omitBegin) inside the block opened on line \(openedAt)")
                }
                openedAt = index + 1
            } else if content.hasPrefix(Self.omitEnd) {
                guard openedAt != nil else {
                    throw CommandRefusal.exit("Examples/\(Self.name)/\(relativePath):\(index + 1): \(Self.omitEnd) without a \(Self.omitBegin)")
                }
                openedAt = nil
            } else if openedAt == nil {
                kept.append(line)
            }
        }
        if let openedAt {
            throw CommandRefusal.exit("Examples/\(Self.name)/\(relativePath):\(openedAt): \(Self.omitBegin) never closed by \(Self.omitEnd)")
        }
        return kept.joined(separator: "\n")
    }
}
