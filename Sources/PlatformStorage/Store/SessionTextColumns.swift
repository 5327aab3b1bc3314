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
        self.init(
            user: StoredJSON.value(of: state.user).serialized(),
            path: Self.text { writer in writer.writeArray(state.path) },
            progress: Self.progress(of: state),
            completion: try state.completion.map { try JSONValue(encoding: $0).serialized() },
            rejection: try state.rejection.map { try JSONValue(encoding: $0).serialized() })
    }

    /// The progress column: the text `JSONValue.serialized()` gives for its object (members in
    /// their keys' byte order), written without building the object first. Every command's
    /// commit writes it; the tree, its dictionaries and the sort of its keys were about a third
    /// of building a commit's columns.
    package static func progress(of state: SessionState) -> String {
        text { writer in
            var members = writer.open()
            if let experiment = state.experiment {
                writer.key("experiment", &members)
                var membership = writer.open()
                writer.member("id", experiment.id, &membership)
                writer.member("variant", experiment.variant, &membership)
                writer.close(membership)
            }
            // Kept with the progress rather than in a column of its own: both stores write this
            // text, and a row from before locales reads as "no locale".
            if !state.locale.isEmpty { writer.member("locale", state.locale, &members) }
            writer.key("secondsSpent", &members)
            var seconds = writer.open()
            for (step, spent) in state.secondsSpent.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                writer.key(step, &seconds)
                writer.write(.double(spent))
            }
            writer.close(seconds)
            writer.key("skipped", &members)
            writer.writeArray(state.skipped.sorted())
            writer.key("stepErrors", &members)
            writer.write(StoredJSON.value(of: state.stepErrors))
            if let total = state.progressTotal { writer.member("total", total, &members) }
            writer.close(members)
        }
    }

    private static func text(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(capacity: 256)
        write(&writer)
        return String(decoding: writer.output, as: UTF8.self)
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
