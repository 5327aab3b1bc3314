import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

/// The validator every test reads replies through must refuse what the schema refuses, or the
/// "every reply validates" checks would prove nothing.
@Suite struct SchemaValidatorTests {
    let validator = SchemaValidator.served
    let view: JSONValue = [
        "sessionId": "s", "tenant": "t", "userId": "u", "flow": "onboarding", "flowVersion": "1", "locale": "en", "status": "active",
        "revision": 0,
        "progress": ["index": 1, "total": 2, "label": "Step 1 of 2", "fraction": 0.5],
        "step": [
            "id": "a", "kind": "question", "title": "A", "actions": [["id": "continue", "label": "Continue"]],
            "content": [:], "errors": [],
            "fields": [["id": "f", "type": "text", "label": "F", "required": true, "value": .null]],
        ],
        "completion": .null, "rejection": .null,
    ]

    func with(_ key: String, _ value: JSONValue?) -> JSONValue {
        var object = view.objectValue!
        object[key] = value
        return .object(object)
    }

    @Test func aWellFormedViewPasses() {
        #expect(validator.problems(result: view, of: "flow.get").isEmpty)
    }

    @Test func driftIsCaught() {
        #expect(!validator.problems(result: with("status", "paused"), of: "flow.get").isEmpty)
        #expect(!validator.problems(result: with("step", nil), of: "flow.get").isEmpty)
        #expect(!validator.problems(result: with("revision", "1"), of: "flow.get").isEmpty)
        #expect(!validator.problems(result: with("surprise", 1), of: "flow.get").isEmpty)
        #expect(!validator.problems(result: with("completion", ["records": []]), of: "flow.get").isEmpty)
        #expect(!validator.problems(error: ["code": -32004]).isEmpty)
    }

    @Test func errorsAreCheckedToo() {
        #expect(validator.problems(error: ["code": -32004, "message": "Validation failed", "data": ["errors": []]]).isEmpty)
        #expect(!validator.problems(error: ["code": -32004, "message": "x", "data": ["errors": [["code": "nope"]]]]).isEmpty)
    }
}
