import PlatformCore
import PlatformServer
import PlatformStorage
import Testing

/// A text field's pattern rule: the whole (normalised) answer must match; the message is the app's.
@Suite struct FieldPatternTests {
    let spec = FieldSpec(
        id: "memberCode", type: .text, label: "Member code",
        pattern: try! FieldPattern("[A-Z]{3}-[0-9]{2}", message: "Use three capital letters, a dash and two digits (ABC-12)."))
    let validator = FieldValidator(searchProviders: [:])

    @Test func aMatchingAnswerIsKeptTrimmed() {
        guard case .valid(let value) = validator.check(" ABC-12 ", against: spec) else {
            Issue.record("ABC-12 should pass")
            return
        }
        #expect(value == "ABC-12")
    }

    @Test(arguments: ["abc-12", "ABC-123", "XABC-12", "ABC12"])
    func anythingElseIsInvalidFormatWithTheAppsMessage(answer: String) {
        guard case .invalid(let error) = validator.check(.string(answer), against: spec) else {
            Issue.record("\(answer) should be refused")
            return
        }
        #expect(error == FieldError(field: "memberCode", code: .invalidFormat, message: "Use three capital letters, a dash and two digits (ABC-12)."))
    }

    @Test func clientsSeeThePattern() {
        #expect(spec.view(value: nil).pattern == "[A-Z]{3}-[0-9]{2}")
    }

    @Test func aPatternThatDoesNotCompileIsRefusedWhenDeclared() {
        #expect(throws: (any Error).self) { try FieldPattern("[unclosed") }
    }
}
