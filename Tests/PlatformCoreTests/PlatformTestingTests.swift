import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// PlatformTesting's own helpers on the fixture plugin: FlowDriver's walk to a step, profile
/// update, gate checks and expectations, and GenericAnswers' values from served FieldViews.
@Suite("PlatformTesting helpers")
struct PlatformTestingTests {
    static let quickAnswers: [String: [String: JSONValue]] = [
        "one": ["oneAnswer": "a"], "two": ["twoAnswer": "b"], "three": ["threeAnswer": "c"], "four": ["fourAnswer": "d"],
    ]

    @Test func walkToAStepSubmitsEachStepsAnswers() async throws {
        let d = try await FlowDriver(plugin: FixturePlugin())
        let three = try await d.walk("u1", flow: "quick", to: "three", answers: Self.quickAnswers)
        expectView(three, step: "three", status: .active)
        #expect(three.revision == 2)
        let back = try await d.back(three)
        #expect(back.value("twoAnswer") == "b")
        // A step the walk never reaches: it ends with the session and says why.
        let failure = await #expect(throws: WalkFailure.self) {
            try await d.walk(back, to: "nowhere", answers: Self.quickAnswers)
        }
        #expect(failure?.view.status == .completed)
        // A step's answers missing: the refusal is thrown as is.
        let refusal = await #expect(throws: RPCError.self) {
            try await d.walk("u2", flow: "quick", to: "three", answers: [:])
        }
        #expect(refusal?.code == ErrorCode.validationFailed.rawValue)
    }

    @Test func expectRefusalChecksTheCodeAndTheFields() async throws {
        let d = try await FlowDriver(plugin: FixturePlugin())
        let basics = try await d.walk("u1", to: "basics", answers: [:])
        let valid: [String: JSONValue] = ["name": "Alex", "age": 30, "kind": "alpha", "hasPet": false]
        let short = await d.expectRefusal(basics, valid.merging(["name": "A"]) { $1 }, fields: ["name"], fieldCodes: [.tooShort])
        #expect(short?.session?.stepId == "basics")
        await d.expectRefusal(basics, valid.merging(["kind": "gamma"]) { $1 }, fields: ["kind"], fieldCodes: [.locked])
        await d.expectRefusal(basics, ["name": "A", "age": 0], fields: ["name", "age", "kind", "hasPet"])
        await d.expectRefusal(basics, valid, action: "skip", code: .invalidState)
        expectView(try await d.submit(basics, valid), step: "route")
    }

    @Test func gatesAndProfileUpdates() async throws {
        let d = try await FlowDriver(plugin: FixturePlugin())
        let blocked = try await d.expectBlocked("u1", "post", by: "tier1")
        #expect(blocked.title == "Finish setting up")
        await d.expectError("profile.update", ["userId": "u1", "values": ["photoUrl": "https://example.com/a.jpg"]], code: .notFound)

        let done = try await d.walk(try await d.start("u1", flow: "quick"), ["one", "two", "three", "four"].map { Self.quickAnswers[$0]! })
        expectView(done, status: .completed)
        #expect(try await d.expectAllowed("u1", "browse").gate == nil)
        let tier2 = try await d.expectBlocked("u1", "post", by: "tier2")
        #expect(tier2.requirements == [GateRequirement(id: "photo", label: "Profile photo", satisfied: false)])

        let updated = try await d.updateProfile("u1", ["photoUrl": "https://example.com/a.jpg"])
        #expect(updated.records["account"]?["photoUrl"] == "https://example.com/a.jpg")
        #expect(updated.records["quick"]?["four"] == "d")
        try await d.expectAllowed("u1", "post")
        await d.expectError("profile.update", ["userId": "u1", "values": ["photoUrl": "http://plain"]], code: .validationFailed, fields: ["photoUrl"])
    }

    /// The expectations record an issue when what they expect does not hold.
    @Test func theExpectationsFailWhenTheyShould() async throws {
        let d = try await FlowDriver(plugin: FixturePlugin())
        let basics = try await d.walk("u1", to: "basics", answers: [:])
        let valid: [String: JSONValue] = ["name": "Alex", "age": 30, "kind": "alpha", "hasPet": false]
        await withKnownIssue { await d.expectRefusal(basics, valid.merging(["name": "A"]) { $1 }, fields: ["age"]) }
        await withKnownIssue { await d.expectRefusal(basics, valid.merging(["name": "A"]) { $1 }, code: .conflict) }
        await withKnownIssue { try await d.expectBlocked("u1", "post", by: "tier2") }
        await withKnownIssue { try await d.expectAllowed("u1", "post") }
        await withKnownIssue { await d.expectError("flow.get", ["sessionId": .string(basics.sessionId)], code: .notFound) }
        withKnownIssue { expectView(basics, step: "route") }
        // Last, as it moves the session: values that are accepted are no refusal.
        await withKnownIssue { await d.expectRefusal(basics, valid) }
    }

    /// GenericAnswers, from the served views alone, gets through the fixture's main flow up to its
    /// search-and-list step, answering each field within its rules.
    @Test func genericAnswersComeFromTheFieldViews() async throws {
        let d = try await FlowDriver(plugin: FixturePlugin())
        var view = try await d.start("u1")
        var answers = GenericAnswers()
        var visited: [String] = []
        while let step = view.stepId, step != "birth", visited.count < 20 {
            visited.append(step)
            let fields = (view.step?.fields ?? []).map(\.json)
            let values = try await answers.values(for: fields) { field in
                let found = try await d.call("flow.search", ["sessionId": .string(view.sessionId), "field": .string(field), "query": "Aus"])
                return found["results"]?.arrayValue?.first?["value"]
            }
            if let error = await d.refuse(view, values) {
                let again = answers.retry(after: error.fieldErrors.map(\.json))
                #expect(again, "\(step): \(error.fieldErrors)")
                if !again { break }
            } else {
                view = try await d.submit(view, values)
            }
        }
        #expect(view.stepId == "birth", "\(visited)")
        #expect(answers.refusals.values.allSatisfy { $0 <= 6 })
        // Made values keep to the field's rules.
        #expect(GenericAnswers.make(["type": "text", "minLength": 8, "maxLength": 10]) == "Alexaaaa")
        #expect(GenericAnswers.make(["type": "integer", "min": 1, "max": 7]) == 4)
        #expect(GenericAnswers.make(["type": "choice", "options": [["value": "x", "locked": true], ["value": "y", "locked": false]]]) == "y")
        #expect(
            GenericAnswers.make(["type": "multi_choice", "minItems": 2, "maxItems": 2, "options": [["value": "a"], ["value": "b"], ["value": "c"]]]) == [
                "a", "b",
            ])
        #expect(GenericAnswers.make(["type": "date", "min": "2000-01-01", "max": "2000-01-03"]) == "2000-01-02")
    }
}

extension FieldView {
    fileprivate var json: JSONValue { (try? JSONValue(encoding: self)) ?? .null }
}

extension FieldError {
    fileprivate var json: JSONValue { (try? JSONValue(encoding: self)) ?? .null }
}
