import Crypto
import Foundation

/// How sessions on an older version of a flow move onto a newer one, declared by the newer
/// flow (``Flow/migrations``) for the version it replaces. Only what cannot be inferred is
/// declared: a renamed step or field (otherwise its answers would be dropped), and for a removed
/// step the step to resume at (otherwise the session resumes at the last step of its path that
/// still exists).
public struct FlowMigration: Sendable, Hashable {
    /// The older version (its ``Flow/version``) this declaration moves sessions from.
    public var from: String
    /// Old step id to new step id.
    public var renamedSteps: [String: String]
    /// Old field id to new field id (field ids are unique in a flow).
    public var renamedFields: [String: String]
    /// A step that is gone, and the step of the new flow a session that stood on it resumes at
    /// (its answers are dropped, as declared).
    public var removedSteps: [String: String]
    /// Fields that are gone on purpose (old ids): their answers are dropped, as declared, so
    /// `flows check` does not count them as lost unawares.
    public var removedFields: [String]

    public init(
        from: String, renamedSteps: [String: String] = [:], renamedFields: [String: String] = [:],
        removedSteps: [String: String] = [:], removedFields: [String] = []
    ) {
        self.from = from
        self.renamedSteps = renamedSteps
        self.renamedFields = renamedFields
        self.removedSteps = removedSteps
        self.removedFields = removedFields
    }
}

extension Flow {
    /// A digest of the flow's shape: its steps and their order, each step's kind and fields (id,
    /// type, required, options' values, list item fields), and its branches and ways on. It
    /// changes whenever one of those does and not otherwise (copy, progress labels and rules
    /// inside `validate` leave it as it is). Sixteen hex digits of a SHA-256.
    ///
    /// - Parameter context: the context the steps list their fields in (the host's: its tenant,
    ///   no answers), so a plugin's settings that change options change the fingerprint too.
    public func fingerprint(in context: StepContext) -> String {
        var lines: [String] = ["flow \(id)"]
        for step in steps {
            lines.append("step \(step.id) \(step.kind.rawValue)")
            for field in step.fields(in: context) { lines.append(contentsOf: Self.shape(of: field, prefix: "  ")) }
            for edge in waysOut(from: step.id) { lines.append("  -> \(edge.to) \(edge.when ?? "")") }
        }
        let digest = SHA256.hash(data: Array(lines.joined(separator: "\n").utf8))
        return String(Hex.string(digest).prefix(16))
    }

    static func shape(of field: FieldSpec, prefix: String) -> [String] {
        let options = field.options.map(\.value).joined(separator: ",")
        var lines = ["\(prefix)field \(field.id) \(field.type.rawValue) \(field.required ? "required" : "optional") [\(options)]"]
        for item in field.itemFields { lines += shape(of: item, prefix: prefix + "  ") }
        return lines
    }
}

extension Flow {
    /// For each older version the flow declares a migration from, its renamed steps' names in
    /// this flow, followed through the declarations of the versions between (version 1's
    /// `intro` renamed `welcome` in 2 and `hello` in 3 is `hello`), for the funnel.
    public var renamedStepsByVersion: [String: [String: String]] {
        var byVersion: [String: [String: String]] = [:]
        for migration in migrations where !migration.renamedSteps.isEmpty {
            byVersion[migration.from] = migration.renamedSteps
        }
        // A name a later declaration renames again: followed, at most as many times as there are
        // declarations (a cycle stops there).
        for (version, renames) in byVersion {
            byVersion[version] = renames.mapValues { name in
                var current = name
                for _ in migrations {
                    guard let later = migrations.first(where: { $0.renamedSteps[current] != nil && $0.from != version }),
                        let next = later.renamedSteps[current], next != current
                    else { break }
                    current = next
                }
                return current
            }
        }
        return byVersion
    }
}
