import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports

/// `platformd scaffold plugin NAME`: a new app's plugin module, its registration line, a test
/// target and a docs page, copied from the package's example plugin (`Examples/Tailwag`, which
/// `swift test` builds and tests) with its names replaced, so what it writes builds and passes.
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
                tailwag renamed TENANT, and adds NAME to Package.swift's plugins and to \
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

            for (source, target) in copies {
                let text = example.renamed(try String(contentsOf: source.url, encoding: .utf8), name: name, tenant: tenantID)
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
}
