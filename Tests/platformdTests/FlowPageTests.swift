import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import PlatformTransports
@testable import platformd

/// The hosted flow's page for a made-up step holding every field type (no plugin's): each a
/// labelled control, values shown again, errors tied to their field, text escaped; and a posted
/// form read back into a submit's values by the same field types.
@Suite struct FlowPageTests {
    static let fields: [FieldView] = [
        FieldView(id: "name", type: .text, label: "Name <b>", required: true, placeholder: "Alex", minLength: 2, maxLength: 30),
        FieldView(id: "email", type: .text, label: "Email", required: false),
        FieldView(id: "age", type: .integer, label: "Age", required: true, min: 13, max: 120),
        FieldView(id: "height", type: .number, label: "Height", required: false, min: 1.2, max: 2.5, step: 0.01),
        FieldView(id: "born", type: .date, label: "Birthday", required: true, min: "1900-01-01", max: "2026-11-25"),
        FieldView(id: "wake", type: .time, label: "Wake up", required: false),
        FieldView(
            id: "level", type: .choice, label: "Level", required: true,
            options: [
                OptionView(value: "a", label: "Beginner", detail: "New to it"), OptionView(value: "b", label: "Expert", locked: true, badge: "Soon"),
            ]),
        FieldView(
            id: "tags", type: .multiChoice, label: "Tags", required: false,
            options: [
                OptionView(value: "x", label: "X"), OptionView(value: "y", label: "Y"),
            ], minItems: 1, maxItems: 2),
        FieldView(id: "agree", type: .boolean, label: "I agree", required: true),
        FieldView(id: "effort", type: .slider, label: "Effort", required: false, min: 0, max: 10, step: 1, default: 5),
        FieldView(
            id: "pets", type: .list, label: "Pets", required: false,
            itemFields: [
                FieldView(id: "kind", type: .text, label: "Kind", required: true),
                FieldView(id: "age", type: .integer, label: "Age", required: false),
            ]),
        FieldView(
            id: "city", type: .search, label: "City", required: true, placeholder: "Search for your city", value: ["value": "42", "label": "Austin, TX"]),
    ]

    static func view(status: SessionStatus = .active, errors: [FieldError] = []) -> SessionView {
        SessionView(
            sessionId: "s", tenant: "t", userId: "u", flow: "onboarding", status: status, revision: 3,
            progress: SessionProgress(index: 2, total: 4, label: "Step 2 of 4", fraction: 0.5),
            step: status.isFinal
                ? nil
                : StepView(
                    id: "everything", kind: .question, title: "All <of> it", subtitle: "Sub", helper: "Help",
                    fields: fields, actions: [.continue(), .skip(), .back], errors: errors),
            completion: status == .completed ? CompletionView(message: "Welcome, Alex!", records: ["profile"]) : nil,
            rejection: status == .rejected ? Rejection(code: "underage", message: "You must be 13+") : nil,
            locale: "en")
    }

    @Test func everyFieldTypeIsALabelledControl() throws {
        let html = FlowPage(view: Self.view(), tenant: "t", flow: "onboarding", csrf: "t=1,v1=ab").render()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<html lang=\"en\">"))
        // Every input, select and textarea a person types or picks in has a label naming it (by
        // `for`, or inside a label, or in a fieldset with a legend).
        let ids =
            html.matches(of: #/<(?:input|select) type="(?!hidden)[^"]*"? ?id="([^"]+)"/#).map { String($0.1) }
            + html.matches(of: #/<select id="([^"]+)"/#).map { String($0.1) }
        #expect(!ids.isEmpty)
        for id in ids {
            #expect(html.contains("for=\"\(id)\""), "\(id) has no label")
        }
        #expect(html.contains("type=\"email\""), "an email field asks for an email")
        #expect(html.contains("type=\"number\" id=\"f-age\"") && html.contains("min=\"13\" max=\"120\""))
        #expect(html.contains("step=\"0.01\" min=\"1.2\" max=\"2.5\""))
        #expect(html.contains("type=\"date\" id=\"f-born\"") && html.contains("max=\"2026-11-25\""))
        #expect(html.contains("type=\"time\""))
        #expect(html.contains("type=\"radio\" id=\"f-level-1\" name=\"level\" value=\"b\" disabled"), "a locked option shows, disabled")
        #expect(html.contains("type=\"checkbox\" id=\"f-tags-0\""))
        #expect(html.contains("data-min-items=\"1\" data-max-items=\"2\""))
        #expect(html.contains("type=\"range\"") && html.contains("value=\"5\""), "the slider shows its default")
        #expect(html.contains("name=\"pets[0].kind\"") && html.contains("value=\"add:pets\"") && html.contains("value=\"remove:pets:0\""))
        #expect(html.contains("role=\"searchbox\"") && html.contains("value=\"search:city\""))
        #expect(html.contains("value=\"42\" checked") && html.contains("Austin, TX"), "the saved place stays chosen")
        #expect(
            html.contains(
                "role=\"progressbar\" aria-valuemin=\"0\" aria-valuemax=\"4\" aria-valuenow=\"2\" aria-valuetext=\"Step 2 of 4\" aria-labelledby=\"progress-label\""
            ))
        #expect(html.contains("<p class=\"progress-label\" id=\"progress-label\">Step 2 of 4</p>"))
        #expect(html.contains("value=\"continue\" class=\"primary\">Continue</button>"))
        #expect(html.contains("value=\"skip\">Skip</button>") && html.contains("value=\"back\">Back</button>"))
        // What a plugin wrote is text, never markup.
        #expect(html.contains("All &lt;of&gt; it") && html.contains("Name &lt;b&gt;"))
        #expect(!html.contains("<b>"))
        #expect(!html.contains("style="), "no inline style: the Content-Security-Policy allows none")
    }

    @Test func aRefusalIsShownBesideItsFieldAndTheAnswerIsKept() throws {
        var page = FlowPage(view: Self.view(), tenant: "t", flow: "onboarding", csrf: "c")
        page.errors = [
            FieldError(field: "age", code: .outOfRange, message: "Age must be between 13 and 120."),
            FieldError(field: nil, code: .required, message: "Something across fields."),
        ]
        page.posted = FormBody(Array("age=7&name=Al".utf8))
        let html = page.render()
        #expect(html.contains("value=\"7\"") && html.contains("value=\"Al\""))
        #expect(html.contains("aria-describedby=\"e-age\" aria-invalid=\"true\""))
        #expect(html.contains("<p class=\"error\" id=\"e-age\">Age must be between 13 and 120.</p>"))
        #expect(html.contains("role=\"alert\"><p>Something across fields.</p>"))
    }

    @Test func theEndOfAFlowShowsItsMessage() {
        #expect(FlowPage(view: Self.view(status: .completed), tenant: "t", flow: "onboarding", csrf: "c").render().contains("<h1>Welcome, Alex!</h1>"))
        #expect(FlowPage(view: Self.view(status: .rejected), tenant: "t", flow: "onboarding", csrf: "c").render().contains("<h1>You must be 13+</h1>"))
        #expect(FlowPage(view: Self.view(status: .expired), tenant: "t", flow: "onboarding", csrf: "c").render().contains("expired"))
    }

    @Test func aPostedFormBecomesTheSubmitsValuesByFieldType() {
        let form = FormBody(
            Array(
                ("name=Alex+M%C3%BCller&email=&age=42&height=1.85&born=1990-04-25&level=a&_present=tags&tags=x&tags=y"
                    + "&agree=false&agree=true&effort=7&pets%5B0%5D.kind=dog&pets%5B0%5D.age=3&pets%5B1%5D.kind=&pets%5B1%5D.age="
                    + "&city=4671654&city.query=austin").utf8))
        let values = FormValues.values(form, fields: Self.fields)
        #expect(values["name"] == "Alex Müller")
        #expect(values["email"] == "", "an empty text is sent as empty: the server says whether it may be")
        #expect(values["age"] == 42)
        #expect(values["height"] == 1.85)
        #expect(values["born"] == "1990-04-25")
        #expect(values["wake"] == nil, "a field the form did not send keeps its saved answer")
        #expect(values["level"] == "a")
        #expect(values["tags"] == ["x", "y"])
        #expect(values["agree"] == true)
        #expect(values["effort"] == 7)
        #expect(values["pets"] == [["kind": "dog", "age": 3]], "an entry left empty is dropped")
        #expect(values["city"] == "4671654")

        let typed = FormValues.values(FormBody(Array("age=abc&_present=tags".utf8)), fields: Self.fields)
        #expect(typed["age"] == "abc", "not a number: sent as typed, for the server's invalid_type")
        #expect(typed["tags"] == [], "every box unticked clears the choice")
        #expect(FormValues.values(FormBody(Array("age=".utf8)), fields: Self.fields)["age"] == .null)
    }

    @Test func entriesAnsweredWithNothingAreDroppedAndAnEmptiedListIsCleared() {
        let withFlag = FieldView(
            id: "pets", type: .list, label: "Pets", required: false,
            itemFields: [
                FieldView(id: "kind", type: .text, label: "Kind", required: true),
                FieldView(id: "indoor", type: .boolean, label: "Indoor", required: false),
            ])
        // A row whose only answer is the checkbox's hidden "false" is an empty row.
        let form = FormBody(
            Array(
                "_present=pets&pets%5B0%5D._entry=1&pets%5B0%5D.kind=cat&pets%5B0%5D.indoor=false&pets%5B1%5D._entry=1&pets%5B1%5D.kind=&pets%5B1%5D.indoor=false"
                    .utf8))
        #expect(FormValues.values(form, fields: [withFlag])["pets"] == [["kind": "cat", "indoor": false]])
        // The last entry removed, then Continue: the list is sent empty, not left as saved.
        #expect(FormValues.values(FormBody(Array("_present=pets".utf8)), fields: [withFlag])["pets"] == [])
        // A list inside a list names its fields `outer[0].inner[0].x`: read without a trap.
        #expect(FormValues.entryIndex(of: "outer[0].inner[3].x", in: "outer[0].inner") == 3)
        #expect(FormValues.entryIndex(of: "outer[0].inner[3].x", in: "outer") == 0)
        #expect(FormValues.entryIndex(of: "pets]x", in: "pets") == nil)
    }

    @Test func removingAListEntryNumbersTheRestDown() {
        let form = FormBody(Array("pets%5B0%5D.kind=a&pets%5B1%5D.kind=b&pets%5B2%5D.kind=c&other=1".utf8))
        #expect(HostedFlow.entryCount(form, "pets") == 3)
        let removed = HostedFlow.removing(entry: 1, of: "pets", from: form)
        #expect(removed.pairs.map { "\($0.name)=\($0.value)" } == ["pets[0].kind=a", "pets[1].kind=c", "other=1"])
    }
}
