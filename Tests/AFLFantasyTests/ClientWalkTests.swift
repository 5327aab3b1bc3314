import Foundation
import PlatformClient
import PlatformClientTesting
import PlatformProtocol
import Testing

/// The AFL Fantasy flow walked to completion through `PlatformClient` against the real `platformd` on a
/// Unix socket (moved from PlatformClientTests, which walks every hosted tenant generically).
@Suite("PlatformClient walk: AFL Fantasy", .timeLimit(.minutes(5)))
struct ClientWalkTests {
    @Test func aflFantasy() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            var view = try await client.start(tenant: "aflfantasy", userId: "ios-42", user: .init(email: "riley@example.com"))
            #expect(view.step?.id == "splash")
            #expect(view.progress.index == 0)
            #expect(view.progress.label == "")

            view = try await client.submit(view)
            #expect(view.step?.title == "Welcome to AFL Fantasy, riley!")
            view = try await client.submit(view)
            #expect(view.step?.id == "team_choice")
            #expect(view.step?.content["carousel"]?["autoAdvanceSeconds"] == 3)
            view = try await client.submit(view, values: ["hasExistingTeam": false])
            #expect(view.step?.id == "create_team_guide")
            #expect(view.progress.label == "Step 3 of 6")

            // Three of five is refused with the items still to do; nothing moves.
            let short = try await #require(throws: PlatformClientError.self) {
                try await client.submit(view, values: ["completedItems": ["visit_website", "sign_in", "pick_squad"]])
            }
            #expect(short.errorCode == .validationFailed)
            #expect(short.fieldErrors.map(\.code) == [.count])
            #expect(short.fieldErrors.first?.message.hasSuffix("Still to do: Name and save your team and Find your Team ID.") == true)
            #expect(short.session?.revision == view.revision)

            view = try await client.submit(
                view, values: ["completedItems": ["visit_website", "sign_in", "pick_squad", "save_team", "find_team_id"]])
            #expect(view.step?.id == "personal_info")
            #expect(view.step?.fields.last?.default == "riley@example.com")
            view = try await client.submit(view, values: ["firstName": "Riley", "email": "riley@example.com"])
            #expect(view.step?.id == "credentials")
            view = try await client.submit(view, values: ["teamId": "4815162342", "teamName": "Riley's Roos"])
            #expect(view.step?.id == "validation")
            #expect(view.step?.kind == .processing)

            view = try await client.submit(view)
            #expect(view.status == .completed)
            #expect(view.progress.label == "Step 6 of 6")
            #expect(view.progress.fraction == 1)
            #expect(view.completion?.message == "Welcome to AFL Fantasy, Riley!")
            #expect(view.completion?.records == ["account"])
            #expect(view.completion?.screen?.title == "You're All Set, Riley!")
            #expect(view.completion?.screen?.actions == [StepAction("open_dashboard", "Go to My Team")])

            let profile = try await client.profile(tenant: "aflfantasy", userId: "ios-42")
            #expect(profile.tenant == "aflfantasy")
            let account = try #require(profile.records["account"])
            #expect(account["teamId"] == "4815162342")
            #expect(account["path"] == "created")
            #expect(account["guide"]?["completedItems"]?.arrayValue?.count == 5)

            try await client.close()
        }
    }
}
