import ArgumentParser
import Foundation
import PlatformCore

/// `platformd scaffold plugin NAME`: a new app's plugin module, its registration line, a test
/// target and a docs page, which build and pass their tests as written.
struct Scaffold: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the skeleton of a new plugin.",
        subcommands: [Plugin.self])

    struct Plugin: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write Sources/Plugins/NAME, Tests/NAMETests, Docs/plugins/TENANT.md and register NAME.",
            discussion: """
                Run from the package's root (or give --root). Writes a two-step flow (a welcome screen and \
                one question) with a completion record and an editable field, a test that walks it, a docs \
                page with its diagram, and adds NAME to Package.swift's plugins and to \
                Sources/platformd/RegisteredPlugins.swift. Then: swift build && swift test --filter NAMETests.
                """)

        @Argument(help: "The plugin's name, UpperCamelCase (PawPal).") var name: String
        @Option(help: "Its default tenant id (default: the name in lowercase).") var tenant: String?
        @Option(help: "The package root.") var root = "."

        var tenantID: String { tenant ?? name.lowercased() }

        func validate() throws {
            guard name.range(of: "^[A-Z][A-Za-z0-9]{1,40}$", options: .regularExpression) != nil else {
                throw ValidationError("NAME must be UpperCamelCase letters and digits, e.g. PawPal")
            }
            guard TenantsConfiguration.isValidID(tenantID) else {
                throw ValidationError("the tenant id must be 1-63 characters of a-z, 0-9 and -")
            }
        }

        func run() throws {
            let base = URL(fileURLWithPath: root, isDirectory: true)
            let files = FileManager.default
            let module = base.appendingPathComponent("Sources/Plugins/\(name)")
            let tests = base.appendingPathComponent("Tests/\(name)Tests")
            let docs = base.appendingPathComponent("Docs/plugins/\(tenantID).md")
            for existing in [module, tests, docs] where files.fileExists(atPath: existing.path) {
                throw ValidationError("\(existing.path) exists already; nothing was written")
            }
            let manifest = base.appendingPathComponent("Package.swift")
            let registry = base.appendingPathComponent("Sources/platformd/RegisteredPlugins.swift")
            var manifestText = try String(contentsOf: manifest, encoding: .utf8)
            var registryText = try String(contentsOf: registry, encoding: .utf8)
            guard let list = manifestText.range(of: "let plugins = [") else {
                throw ValidationError("Package.swift has no `let plugins = [` line to add \(name) to")
            }
            guard let registrations = registryText.range(of: "static let registrations: [PluginRegistration] = [\n") else {
                throw ValidationError("RegisteredPlugins.swift has no registrations list to add \(name) to")
            }
            manifestText.insert(contentsOf: "\"\(name)\", ", at: list.upperBound)
            registryText.insert(contentsOf: "        \(name)Plugin.registration,\n", at: registrations.upperBound)
            registryText = "import \(name)\n" + registryText

            try files.createDirectory(at: module, withIntermediateDirectories: true)
            try files.createDirectory(at: tests, withIntermediateDirectories: true)
            try ScaffoldTemplate.source(name: name, tenant: tenantID)
                .write(to: module.appendingPathComponent("\(name)Plugin.swift"), atomically: true, encoding: .utf8)
            try ScaffoldTemplate.tests(name: name)
                .write(to: tests.appendingPathComponent("\(name)FlowTests.swift"), atomically: true, encoding: .utf8)
            try ScaffoldTemplate.docs(name: name, tenant: tenantID).write(to: docs, atomically: true, encoding: .utf8)
            try manifestText.write(to: manifest, atomically: true, encoding: .utf8)
            try registryText.write(to: registry, atomically: true, encoding: .utf8)
            for line in [
                "wrote Sources/Plugins/\(name)/\(name)Plugin.swift", "wrote Tests/\(name)Tests/\(name)FlowTests.swift",
                "wrote Docs/plugins/\(tenantID).md", "added \(name) to Package.swift and Sources/platformd/RegisteredPlugins.swift",
                "next: swift build && swift test --filter \(name)Tests",
            ] {
                StandardOutput.writeLine(line)
            }
        }
    }
}

/// What the scaffold writes. `preview` is the same flow in process, so the docs page's diagram is
/// the one `platformd describe` will print once the new module is built.
enum ScaffoldTemplate {
    static func welcomeTitle(_ name: String) -> String { "Welcome to \(name)" }
    static let questionTitle = "What should we call you?"

    static func source(name: String, tenant: String) -> String {
        """
        import PlatformCore

        /// \(name)'s onboarding, served under tenant `\(tenant)`. Written by `platformd scaffold plugin \(name)`:
        /// a welcome screen and one question. Replace the steps, the completion and Docs/plugins/\(tenant).md.
        public struct \(name)Plugin: OnboardingPlugin {
            public let id = "\(tenant)"
            public let name = "\(name)"
            public let version = "0.1.0"

            public init() {}

            /// How the host registers \(name) (one line in Sources/platformd/RegisteredPlugins.swift).
            public static let registration = PluginRegistration(
                name: "\(name)", defaultTenant: "\(tenant)", make: { _ in \(name)Plugin() })

            public var flows: [Flow] {
                [Flow(steps: [WelcomeStep(), NicknameStep()], completion: ProfileCompletion())]
            }

            /// `profile.update` writes `nickname` into the `profile` record; no code needed.
            public var editableFields: [FieldSpec] { [NicknameStep.field.with(record: "profile")] }
        }

        struct WelcomeStep: FlowStep {
            let id = "welcome"
            let kind = StepKind.content

            func copy(in context: StepContext) -> StepCopy {
                StepCopy(title: "\(welcomeTitle(name))", subtitle: "Let's set up your profile.", actions: [.continue("Get Started")])
            }
        }

        struct NicknameStep: FlowStep {
            let id = "nickname_step"
            let kind = StepKind.question

            static let field = FieldSpec(
                id: "nickname", type: .text, label: "Nickname", placeholder: "Your nickname", minLength: 2, maxLength: 30)

            func fields(in context: StepContext) -> [FieldSpec] { [Self.field] }

            func copy(in context: StepContext) -> StepCopy {
                StepCopy(title: "\(questionTitle)", helper: "Hi \\(context.displayName)!", actions: [.continue("Finish")])
            }
        }

        struct ProfileCompletion: CompletionHandler {
            func complete(_ context: StepContext) throws -> CompletionResult {
                let nickname = context.value(of: "nickname")?.stringValue ?? context.displayName
                return CompletionResult(
                    records: ["profile": ["nickname": .string(nickname)]], message: "Welcome to \(name), \\(nickname)!")
            }
        }

        extension FieldSpec {
            func with(record: String) -> FieldSpec {
                var spec = self
                spec.record = record
                return spec
            }
        }

        """
    }

    static func tests(name: String) -> String {
        """
        import PlatformCore
        import PlatformTesting
        import Testing
        @testable import \(name)

        /// \(name)'s flow through the engine (written by the scaffold; extend it with the app's rules).
        @Suite struct \(name)FlowTests {
            @Test func theFlowCompletesWritesTheProfileAndTakesUpdates() async throws {
                let driver = try FlowDriver(plugin: \(name)Plugin())
                var view = try await driver.start("u1", user: UserDetails(firstName: "Alex"))
                #expect(view.stepId == "welcome")
                view = try await driver.submit(view)
                #expect(view.stepId == "nickname_step")
                let refused = await driver.refuse(view, ["nickname": "A"])
                #expect(refused?.fieldErrors.first?.code == .tooShort)
                view = try await driver.submit(view, ["nickname": "Ace"])
                #expect(view.status == .completed)
                #expect(try await driver.profile("u1")["records"]?["profile"]?["nickname"] == "Ace")
                let updated = try await driver.call("profile.update", ["userId": "u1", "values": ["nickname": "Ace2"]])
                #expect(updated["records"]?["profile"]?["nickname"] == "Ace2")
            }
        }

        """
    }

    static func docs(name: String, tenant: String) -> String {
        let mermaid = FlowDiagram(flow: preview(name: name, tenant: tenant).flows[0], plugin: preview(name: name, tenant: tenant)).mermaid
        return """
        # \(name) (`\(tenant)`)

        Written by `platformd scaffold plugin \(name)`: describe the app's steps, field ids and values, rules,
        records and settings here as the other plugin pages do.

        | step | kind | fields |
        | --- | --- | --- |
        | `welcome` | content | |
        | `nickname_step` | question | `nickname` (text, 2-30 characters) |

        Records: `profile` (`nickname`). Editable after onboarding: `nickname`.

        ```mermaid
        \(mermaid)
        ```

        """
    }

    /// The scaffold's flow in process, for its diagram.
    struct PreviewPlugin: OnboardingPlugin {
        let id: String
        let name: String
        let version = "0.1.0"

        struct Welcome: FlowStep {
            let id = "welcome"
            let kind = StepKind.content
            let title: String
            func copy(in context: StepContext) -> StepCopy { StepCopy(title: title) }
        }

        struct Nickname: FlowStep {
            let id = "nickname_step"
            let kind = StepKind.question
            func fields(in context: StepContext) -> [FieldSpec] {
                [FieldSpec(id: "nickname", type: .text, label: "Nickname", minLength: 2, maxLength: 30)]
            }
            func copy(in context: StepContext) -> StepCopy { StepCopy(title: ScaffoldTemplate.questionTitle) }
        }

        struct Done: CompletionHandler {
            func complete(_ context: StepContext) throws -> CompletionResult { CompletionResult(records: [:], message: "") }
        }

        var flows: [Flow] { [Flow(steps: [Welcome(title: welcomeTitle(name)), Nickname()], completion: Done())] }
    }

    static func preview(name: String, tenant: String) -> PreviewPlugin {
        PreviewPlugin(id: tenant, name: name)
    }
}
