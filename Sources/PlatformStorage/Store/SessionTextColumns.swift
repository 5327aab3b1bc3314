import Foundation
import PlatformCore

/// The session row's JSON text columns (`user_json`, `path_json`, `progress_json`,
/// `completion_json`, `rejection_json`), written and read the same way by every store, so the
/// SQLite and PostgreSQL rows hold the same text and neither goes through Foundation's coders
/// for the columns every command reads and writes.
package struct SessionTextColumns: Sendable {
    package var user: String
    package var path: String
    package var progress: String
    package var completion: String?
    package var rejection: String?

    package init(user: String, path: String, progress: String, completion: String?, rejection: String?) {
        self.user = user
        self.path = path
        self.progress = progress
        self.completion = completion
        self.rejection = rejection
    }

    package init(_ state: SessionState) throws {
        var progress: [String: JSONValue] = [
            "skipped": .array(state.skipped.sorted().map(JSONValue.string)),
            "stepErrors": StoredJSON.value(of: state.stepErrors),
            "secondsSpent": .object(state.secondsSpent.mapValues(JSONValue.double)),
        ]
        // Kept with the progress rather than in a column of its own: both stores write this
        // text, and a row from before locales reads as "no locale".
        if !state.locale.isEmpty { progress["locale"] = .string(state.locale) }
        if let total = state.progressTotal { progress["total"] = .int(Int64(total)) }
        if let experiment = state.experiment {
            progress["experiment"] = ["id": .string(experiment.id), "variant": .string(experiment.variant)]
        }
        self.init(
            user: StoredJSON.value(of: state.user).serialized(),
            path: JSONValue.array(state.path.map(JSONValue.string)).serialized(),
            progress: JSONValue.object(progress).serialized(),
            completion: try state.completion.map { try JSONValue(encoding: $0).serialized() },
            rejection: try state.rejection.map { try JSONValue(encoding: $0).serialized() })
    }

    /// What the columns say of a session.
    package struct Decoded {
        package var user: UserDetails
        package var path: [String]
        package var skipped: Set<String>
        package var stepErrors: [String: [FieldError]]
        package var secondsSpent: [String: Double]
        package var locale: String
        package var progressTotal: Int?
        package var experiment: ExperimentMembership?
        package var completion: CompletionView?
        package var rejection: Rejection?
    }

    package func decoded() throws -> Decoded {
        let progress = try JSONValue.parse(progress)
        return Decoded(
            user: try StoredJSON.user(JSONValue.parse(user)),
            path: try JSONValue.parse(path).arrayValue?.compactMap(\.stringValue) ?? [],
            skipped: Set(progress["skipped"]?.arrayValue?.compactMap(\.stringValue) ?? []),
            stepErrors: try progress["stepErrors"].map(StoredJSON.stepErrors) ?? [:],
            secondsSpent: (progress["secondsSpent"]?.objectValue ?? [:]).compactMapValues(\.doubleValue),
            locale: progress["locale"]?.stringValue ?? "",
            progressTotal: progress["total"]?.intValue,
            experiment: progress["experiment"].flatMap { membership in
                guard let id = membership["id"]?.stringValue, let variant = membership["variant"]?.stringValue else { return nil }
                return ExperimentMembership(id: id, variant: variant)
            },
            completion: try completion.map { try JSONValue.parse($0).decode(CompletionView.self) },
            rejection: try rejection.map { try JSONValue.parse($0).decode(Rejection.self) })
    }
}
