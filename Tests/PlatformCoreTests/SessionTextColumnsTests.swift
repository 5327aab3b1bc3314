import Foundation
import PlatformCore
import PlatformStorage
import Testing

/// The session row's progress and path text, written without a `JSONValue` tree, is byte for
/// byte the text the tree gave (stored rows and the other store's rows read the same), and reads
/// back as the state it was written from.
@Suite struct SessionTextColumnsTests {
    /// The progress column as it was written before: an object of `JSONValue`s, serialized.
    static func treeProgress(_ state: SessionState) -> String {
        var progress: [String: JSONValue] = [
            "skipped": .array(state.skipped.sorted().map(JSONValue.string)),
            "stepErrors": .object(
                state.stepErrors.mapValues { errors in
                    .array(
                        errors.map { error in
                            ["field": error.field.map(JSONValue.string) ?? .null, "code": .string(error.code.rawValue), "message": .string(error.message)]
                        })
                }),
            "secondsSpent": .object(state.secondsSpent.mapValues(JSONValue.double)),
        ]
        if !state.locale.isEmpty { progress["locale"] = .string(state.locale) }
        if let total = state.progressTotal { progress["total"] = .int(Int64(total)) }
        if let experiment = state.experiment {
            progress["experiment"] = ["id": .string(experiment.id), "variant": .string(experiment.variant)]
        }
        return JSONValue.object(progress).serialized()
    }

    static let steps = ["a", "b", "Z", "é", "e\u{301}", "step \"quoted\"", "tab\there", "日本", "a\u{0}b", "zz"]

    static func state(_ generator: inout some RandomNumberGenerator) -> SessionState {
        var state = SessionState(
            id: "s", tenant: "t", userId: "u", flow: "f", path: Array(steps.shuffled(using: &generator).prefix(Int.random(in: 0...5, using: &generator))),
            arrivedAt: Date(timeIntervalSince1970: 0), createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        let seconds: [Double] = [0, 1, 2.5, 1e-05, 123_456_789.125, 1.5e300, 0.1 + 0.2]
        for step in steps where Bool.random(using: &generator) { state.secondsSpent[step] = seconds.randomElement(using: &generator)! }
        for step in steps where Int.random(in: 0..<4, using: &generator) == 0 { state.skipped.insert(step) }
        if Bool.random(using: &generator) {
            state.stepErrors["b"] = [
                FieldError(field: "name", code: .required, message: "Say \"who\"."), FieldError(field: nil, code: .invalidType, message: "é"),
            ]
        }
        state.locale = ["", "en", "es-MX", "pt_BR"].randomElement(using: &generator)!
        state.progressTotal = [nil, 0, 7, 12].randomElement(using: &generator)!
        state.experiment = [nil, ExperimentMembership(id: "revamp", variant: "classic"), ExperimentMembership(id: "x\"y", variant: "é")]
            .randomElement(using: &generator)!
        return state
    }

    @Test func theColumnsAreTheTextTheTreeGaveAndReadBack() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let state = Self.state(&generator)
            let columns = try SessionTextColumns(state)
            #expect(columns.progress == Self.treeProgress(state))
            #expect(columns.path == JSONValue.array(state.path.map(JSONValue.string)).serialized())
            let decoded = try columns.decoded()
            #expect(decoded.path == state.path)
            #expect(decoded.secondsSpent == state.secondsSpent)
            #expect(decoded.skipped == state.skipped)
            #expect(decoded.locale == state.locale)
            #expect(decoded.progressTotal == state.progressTotal)
            #expect(decoded.experiment == state.experiment)
            #expect(decoded.stepErrors == state.stepErrors)
        }
    }
}
