import Foundation
import Testing

@testable import PlatformCore
@testable import PlatformServer
@testable import PlatformStorage
@testable import SQLiteStore

/// `JSONRenderable`: a wire type's one encoder is its writer (its `Codable` encoding is derived
/// from it). What it writes must be what clients decode: the text decodes (the synthesized
/// `Decodable`) to a value that writes the same text again, and a JSONEncoder gives that text too.
@Suite struct JSONRenderingTests {
    /// `exact`: the value decodes to itself (false where a `JSONValue` holds 20.0, which reads
    /// back as 20: then what it decodes to must write the same again).
    func expectAlike<Value: JSONRenderable & Decodable & Equatable>(
        _ value: Value, decodes: Bool = true, exact: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let rendered = value.renderedJSON()
        let encoded = try JSONValue(encoding: value).serialized()
        #expect(encoded == String(decoding: rendered, as: UTF8.self), sourceLocation: sourceLocation)
        guard decodes else { return }
        let decoded = try JSONDecoder().decode(Value.self, from: Data(rendered))
        if exact {
            #expect(decoded == value, sourceLocation: sourceLocation)
        } else {
            let again = try JSONDecoder().decode(Value.self, from: Data(decoded.renderedJSON()))
            #expect(decoded == again, sourceLocation: sourceLocation)
        }
    }

    static let progress = SessionProgress(index: 3, total: 11, label: "Step 3 of 11", fraction: 0.2727)

    @Test func anActiveViewWithEveryKindOfField() throws {
        let fields = [
            FieldView(
                id: "name", type: .text, label: "Name \"quoted\"\n", required: true, placeholder: "Alex",
                minLength: 1, maxLength: 80, value: "Zoë\u{2028}", pattern: "[a-z]+"),
            FieldView(
                id: "state", type: .choice, label: "State", required: false,
                options: [
                    OptionView(value: "AL", label: "Alabama"),
                    OptionView(value: "x", label: "Locked", detail: "d", locked: true, badge: "PRO", link: "https://e.x/a?b=1"),
                ],
                visibleWhen: VisibilityCondition(field: "club", equals: true)),
            FieldView(
                id: "age", type: .slider, label: "Age", required: true, min: 13, max: .double(99.5), step: .double(0.5),
                default: .double(20), value: .int(-3),
                extra: ["bands": [["from": 0, "label": "low"]], "helper": "h", "zzz": .null, "aaa": 1.25, "min": "dropped"]),
            FieldView(
                id: "goals", type: .multiChoice, label: "Goals", required: false, options: [],
                minItems: 0, maxItems: 3, allowCustom: true,
                itemFields: [FieldView(id: "title", type: .text, label: "Title", required: true)]),
            FieldView(id: "empty", type: .list, label: "", required: false, extra: ["itemFields": "known, so skipped"]),
        ]
        let step = StepView(
            id: "team_info", kind: .question, title: "Team \u{1}details", subtitle: "sub", helper: nil, fields: fields,
            actions: [.continue(), .back], content: ["message": "hi", "nested": ["b": 1, "a": [true, false, .null]]],
            errors: [FieldError(field: "name", code: .tooLong, message: "Too long"), FieldError(field: nil, code: .count, message: "m")])
        try expectAlike(
            SessionView(
                sessionId: "s-1", tenant: "fixture", userId: "u/1", flow: "onboarding", status: .active, revision: 7,
                progress: Self.progress, step: step), exact: false)
        try expectAlike(step, exact: false)
    }

    @Test func finishedViews() throws {
        let screen = CompletionScreen(title: "Done", body: "b", summary: [["label": "x", "value": 1.5]], actions: [StepAction("home", "Home")])
        try expectAlike(
            SessionView(
                sessionId: "s", tenant: "t", userId: "u", flow: "f", status: .completed, revision: 12,
                progress: SessionProgress(index: 11, total: 11, label: "", fraction: 1), step: nil,
                completion: CompletionView(message: "Welcome, Alex!", records: ["profile", "goals"], screen: screen)))
        try expectAlike(
            SessionView(
                sessionId: "s", tenant: "t", userId: "u", flow: "f", status: .completed, revision: 1,
                progress: SessionProgress(index: 0, total: 0, label: "", fraction: 0), step: nil,
                completion: CompletionView(message: "m", records: [])))
        try expectAlike(
            SessionView(
                sessionId: "s", tenant: "t", userId: "u", flow: "f", status: .rejected, revision: 2,
                progress: SessionProgress(index: 0, total: 5, label: "", fraction: .nan), step: nil,
                rejection: Rejection(code: "underage", message: "Sorry")), decodes: false)
    }

    @Test func storedColumnsReadBackAsWritten() throws {
        let user = UserDetails(firstName: "Alex", lastName: nil, email: "a@b.c", displayName: nil)
        let userJSON = StoredJSON.value(of: user)
        #expect(userJSON.serialized() == (try JSONValue(encoding: user)).serialized())
        #expect(try StoredJSON.user(userJSON) == user)
        #expect(try StoredJSON.user(JSONValue.parse(#"{"firstName":"A","email":null}"#)) == UserDetails(firstName: "A"))

        let errors: [String: [FieldError]] = [
            "team_info": [FieldError(field: "hsState", code: .notAnOption, message: "Pick a state"), FieldError(field: nil, code: .count, message: "m")],
            "goals": [],
        ]
        let errorsJSON = StoredJSON.value(of: errors)
        #expect(errorsJSON.serialized() == (try JSONValue(encoding: errors)).serialized())
        #expect(try StoredJSON.stepErrors(errorsJSON) == errors)
        #expect(throws: StoredJSON.Malformed.self) { try StoredJSON.stepErrors(["s": [["code": "nope", "message": "m"]]]) }
        #expect(throws: StoredJSON.Malformed.self) { try StoredJSON.user(["firstName": 3]) }
    }
}
