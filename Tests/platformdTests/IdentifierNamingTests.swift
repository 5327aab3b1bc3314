import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import Testing

@testable import platformd

/// The contract names step ids in snake_case (`team_gender`) and field ids in lowerCamelCase
/// (`teamGender`); ids a plugin adds follow the same rule. Checked for every registered plugin:
/// step ids, field ids (with the keys of list items, like a custom goal's), and the fields
/// `profile.update` accepts.
@Suite("Identifier naming")
struct IdentifierNamingTests {
    static func isSnakeCase(_ id: String) -> Bool {
        id.wholeMatch(of: #/[a-z][a-z0-9]*(_[a-z0-9]+)*/#) != nil
    }

    static func isLowerCamelCase(_ id: String) -> Bool {
        id.wholeMatch(of: #/[a-z][a-zA-Z0-9]*/#) != nil
    }

    static func fieldIDs(_ fields: [FieldSpec]) -> [String] {
        fields.flatMap { [$0.id] + fieldIDs($0.itemFields) }
    }

    @Test func theRulesThemselves() {
        #expect(Self.isSnakeCase("welcome_journey") && Self.isSnakeCase("sport"))
        #expect(!Self.isSnakeCase("teamGender") && !Self.isSnakeCase("team-gender") && !Self.isSnakeCase("_team"))
        #expect(Self.isLowerCamelCase("hsTeamName") && Self.isLowerCamelCase("photoUrl"))
        #expect(!Self.isLowerCamelCase("team_gender") && !Self.isLowerCamelCase("HsTeamName"))
    }

    @Test func everyPluginNamesStepsInSnakeCaseAndFieldsInLowerCamelCase() {
        let plugins = RegisteredPlugins.defaultTenants.map(\.plugin)
        #expect(plugins.count == RegisteredPlugins.registrations.count)
        for plugin in plugins {
            let context = StepContext(tenant: plugin.id, displayName: plugin.defaultDisplayName, now: .now)
            for flow in plugin.flows {
                #expect(Self.isSnakeCase(flow.id), "\(plugin.id): flow \(flow.id)")
                for step in flow.steps {
                    #expect(Self.isSnakeCase(step.id), "\(plugin.id): step \(step.id)")
                    for field in Self.fieldIDs(step.fields(in: context)) {
                        #expect(Self.isLowerCamelCase(field), "\(plugin.id): field \(field) of step \(step.id)")
                    }
                }
            }
            for field in Self.fieldIDs(plugin.editableFields) {
                #expect(Self.isLowerCamelCase(field), "\(plugin.id): editable field \(field)")
            }
        }
    }
}
