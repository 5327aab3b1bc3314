import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore

/// Walks one flow twice side by side, once in the plugin's base language and once in another
/// locale, with the same answers, and reports where the two differ in anything but words, and
/// which texts the locale leaves in the base language.
///
/// On each step it first submits nothing (so the step's `required` errors are shown in both
/// languages), then the step's answers from `answers` (else ``GenericAnswers``'s).
public struct LocaleWalk: Sendable {
    public struct Report: Sendable {
        /// Base texts with no translation in the locale, in the order met.
        public var untranslated: [String] = []
        /// Ids, values, statuses or error codes that differ between the two walks.
        public var differences: [String] = []
        /// The steps walked, in order.
        public var steps: [String] = []
        /// The `locale` each localized view answered with.
        public var locales: Set<String> = []
        /// The final status of the localized walk.
        public var status: SessionStatus = .active
        /// Every localized view, for a test that reads its texts.
        public var views: [SessionView] = []
    }

    public let driver: FlowDriver
    public let locale: String

    public init(driver: FlowDriver, locale: String) {
        self.driver = driver
        self.locale = locale
    }

    /// Texts in `view` (a base-language view) without a translation, `known` data left out.
    func missing(in view: SessionView, known: Set<String>) -> [String] {
        driver.copy.untranslated(view, in: driver.copy.served(locale)).filter { !known.contains($0) }
    }

    /// - Parameters:
    ///   - known: texts that are data, not copy (what the answers type, names the search finds).
    ///   - search: the value of a result for a search field.
    public func walk(
        _ userId: String, user: UserDetails? = nil, flow: String = "onboarding",
        answers: [String: [String: JSONValue]], known: Set<String> = [],
        search: @escaping @Sendable (String) async throws -> JSONValue? = { _ in nil }, maxSteps: Int = 60
    ) async throws -> Report {
        var report = Report()
        var base = try await driver.start(userId + "-base", user: user, flow: flow)
        var local = try await driver.start(userId + "-" + locale, user: user, flow: flow, locale: locale)
        var generic = GenericAnswers()
        func record(_ base: SessionView, _ local: SessionView) {
            report.views.append(local)
            report.locales.insert(local.locale ?? "nil")
            for text in missing(in: base, known: known) where !report.untranslated.contains(text) {
                report.untranslated.append(text)
            }
            let difference = Self.shape(base) == Self.shape(local) ? nil : "\(base.stepId ?? base.status.rawValue): \(Self.shape(base)) ≠ \(Self.shape(local))"
            if let difference { report.differences.append(difference) }
        }
        record(base, local)
        for _ in 0..<maxSteps {
            guard base.status == .active, let step = base.step else { break }
            report.steps.append(step.id)
            if step.fields.contains(where: \.required) {
                let baseError = await driver.refuse(base, [:])
                let localError = await driver.refuse(local, [:])
                let baseErrors = baseError?.fieldErrors ?? []
                let localErrors = localError?.fieldErrors ?? []
                if baseErrors.map(\.field) != localErrors.map(\.field) || baseErrors.map(\.code) != localErrors.map(\.code) {
                    report.differences.append("\(step.id) refused: \(baseErrors) ≠ \(localErrors)")
                }
                for error in baseErrors where driver.copy.translation(of: error.message, in: driver.copy.served(locale)) == nil {
                    if !report.untranslated.contains(error.message) { report.untranslated.append(error.message) }
                }
            }
            let fields = try step.fields.map { try JSONValue(encoding: $0) }
            var values = answers[step.id] ?? [:]
            if answers[step.id] == nil { values = try await generic.values(for: fields, search: search) }
            let nextBase = try await driver.submit(base, values)
            let nextLocal = try await driver.submit(local, values)
            if nextBase.stepId == step.id, !nextBase.stepErrors.isEmpty || nextBase.revision == base.revision {
                if !generic.retry(after: try nextBase.stepErrors.map { try JSONValue(encoding: $0) }) { break }
            }
            base = nextBase
            local = nextLocal
            record(base, local)
        }
        report.status = local.status
        return report
    }

    /// What must be the same in every language: ids, types, values, options' values, errors'
    /// fields and codes, progress and status.
    static func shape(_ view: SessionView) -> String {
        var parts = [view.status.rawValue, "\(view.progress.index)/\(view.progress.total)", "r\(view.revision)"]
        if let step = view.step {
            parts.append(step.id)
            parts.append(step.actions.map(\.id).joined(separator: ","))
            for field in step.fields {
                parts.append("\(field.id):\(field.type.rawValue):\(field.required):\(field.value.map { $0.serialized() } ?? "-")")
                parts.append((field.options ?? []).map { "\($0.value)\($0.locked ? "!" : "")" }.joined(separator: ","))
            }
            parts.append(step.errors.map { "\($0.field ?? "-"):\($0.code.rawValue)" }.joined(separator: ","))
        }
        parts.append(view.completion?.records.joined(separator: ",") ?? "")
        parts.append(view.rejection?.code ?? "")
        return parts.joined(separator: " ")
    }
}
