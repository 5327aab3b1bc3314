import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import TeePals

@Suite("Gates")
struct GateTests {
    static let socialActions = ["join_round", "create_post", "host_round", "send_message"]
    static let photo = "https://cdn.teepals.example/u1/photo.jpg"

    func expectTier2(_ d: FlowDriver, photo: Bool, skill: Bool) async throws {
        for action in Self.socialActions {
            let decision = try await d.gate("u1", action)
            #expect(decision["action"] == .string(action))
            #expect(decision["allowed"] == .bool(photo && skill), "\(action)")
            #expect(
                decision["requirements"] == [
                    ["id": "photo", "label": "Profile photo", "satisfied": .bool(photo)],
                    ["id": "skillLevel", "label": "Skill level", "satisfied": .bool(skill)],
                ])
            if photo && skill {
                #expect(decision["gate"] == nil)
            } else {
                #expect(decision["gate"] == "tier2")
                #expect(decision["title"] == "Complete Your Profile")
                #expect(decision["message"] == "To join rounds and connect with golfers, please add:")
                #expect(decision["cta"] == "Add Photo & Skill Level")
            }
        }
    }

    @Test func tier1BlocksEveryActionUntilTheWizardIsComplete() async throws {
        let d = try await teePals()
        for action in Self.socialActions + ["browse_rounds", "view_profile"] {
            try await d.expectBlocked("nobody", action, by: "tier1")
        }
        _ = try await d.session(at: "gender")
        let decision = try await d.expectBlocked("u1", "browse_rounds", by: "tier1")
        #expect(decision.title == "Finish Setting Up")
        #expect(decision.cta == "Continue Setup")
        await d.expectError("profile.update", ["userId": "u1", "values": ["skillLevel": "expert"]], code: .notFound)
    }

    @Test func afterTier1OnlyTheSocialActionsAreGated() async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        try await expectTier2(d, photo: false, skill: false)
        for action in ["browse_rounds", "view_profile", "edit_profile", "search_golfers"] {
            #expect(try await d.expectAllowed("u1", action).gate == nil)
        }
    }

    @Test func photoThenSkillLevelOpensTheGate() async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        let afterPhoto = try await d.update("u1", ["photoUrl": .string(Self.photo)])
        #expect(afterPhoto["records"]?["profile_public"]?["photoUrl"] == .string(Self.photo))
        #expect(afterPhoto["records"]?["profile_public"]?["skillLevel"] == .null)
        try await expectTier2(d, photo: true, skill: false)
        let afterSkill = try await d.update("u1", ["skillLevel": "intermediate"])
        #expect(afterSkill["records"]?["profile_public"]?["skillLevel"] == "intermediate")
        #expect(afterSkill["records"]?["profile_public"]?["photoUrl"] == .string(Self.photo))
        #expect(afterSkill["records"]?["profile_public"]?["nickname"] == "Birdie Queen")
        try await expectTier2(d, photo: true, skill: true)
        #expect(try await d.profile("u1")["records"] == afterSkill["records"])
    }

    @Test func skillLevelThenPhotoOpensTheGateAndRemovingOneClosesIt() async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        _ = try await d.update("u1", ["skillLevel": "beginner"])
        try await expectTier2(d, photo: false, skill: true)
        _ = try await d.update("u1", ["photoUrl": .string(Self.photo)])
        try await expectTier2(d, photo: true, skill: true)
        _ = try await d.update("u1", ["photoUrl": nil])
        try await expectTier2(d, photo: false, skill: true)
        _ = try await d.update("u1", ["photoUrl": .string(Self.photo), "skillLevel": "expert"])
        try await expectTier2(d, photo: true, skill: true)
    }

    @Test(arguments: ["beginner", "intermediate", "advanced", "expert"])
    func eachSkillLevelIsAccepted(_ level: String) async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        let profile = try await d.update("u1", ["skillLevel": .string(level)])
        #expect(profile["records"]?["profile_public"]?["skillLevel"] == .string(level))
    }

    @Test func badUpdatesAreRefusedAndChangeNothing() async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        let longest = "https://cdn.example/" + String(repeating: "a", count: 2048 - 20)
        #expect(longest.count == 2048)
        #expect(try await d.update("u1", ["photoUrl": .string(longest)])["records"]?["profile_public"]?["photoUrl"] == .string(longest))
        _ = try await d.update("u1", ["photoUrl": nil])
        let before = try await d.profile("u1")

        let cases: [([String: JSONValue], FieldErrorCode)] = [
            (["photoUrl": "http://cdn.example/me.jpg"], .invalidFormat),
            (["photoUrl": "cdn.example/me.jpg"], .invalidFormat),
            (["photoUrl": "https://"], .invalidFormat),
            (["photoUrl": "https://cdn.example/my photo.jpg"], .invalidFormat),
            (["photoUrl": "javascript:alert(1)"], .invalidFormat),
            (["photoUrl": .string(longest + "a")], .tooLong),
            (["photoUrl": 42], .invalidType),
            (["skillLevel": "pro"], .notAnOption),
            (["skillLevel": "Expert"], .notAnOption),
            (["nickname": "New Name"], .notEditable),
            (["gender": "male"], .notEditable),
        ]
        for (values, code) in cases {
            let error = await d.error("profile.update", ["userId": "u1", "values": .object(values)])
            #expect(error?.code == -32004, "\(values)")
            #expect(error?.fieldErrors.map(\.code) == [code], "\(values)")
        }
        let all = await d.error(
            "profile.update", ["userId": "u1", "values": ["photoUrl": "http://cdn.example/me.jpg", "skillLevel": "pro", "nickname": "New"]])
        #expect(all?.fieldErrors.map(\.field) == ["nickname", "photoUrl", "skillLevel"], "every refused key at once")
        #expect(all?.fieldErrors.map(\.code) == [.notEditable, .invalidFormat, .notAnOption])
        #expect(try await d.profile("u1") == before)
        try await expectTier2(d, photo: false, skill: false)
    }
}
