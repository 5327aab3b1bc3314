import Foundation
import Hummingbird
import PlatformCore
import PlatformProtocol
import PlatformServer

/// The dashboard's page of one experiment: each variant's completion rate with its interval, the
/// SRM state, each variant's funnel, and the stop if there was one. Its figures come through the
/// same dispatcher as `analytics.experiment`, acting as the signed-in key.
extension AdminDashboard {
    func experiment(_ request: Request, tenant: String, experiment id: String) async -> Response {
        guard let (login, secret) = await admin(request) else { return loginPage(.unauthorized, request) }
        let results: ExperimentResults
        switch await web.call(.experiment, ["tenant": .string(tenant), "experiment": .string(id)], as: login, returning: ExperimentResults.self) {
        case .success(let answered): results = answered
        case .failure(let error):
            return WebSupport.notice(.notFound, title: "Not found", message: error.message, link: ("/admin/", "All tenants"))
        }
        var body = header(secret) + "<nav><a href=\"/admin/\">All tenants</a></nav>\n"
        body += "<h1>\(HTML.text("\(tenant): experiment \(results.experiment)"))</h1>\n"
        body += "<p>\(HTML.text("Seed \(results.seed), \(results.status), control \(results.control)."))</p>\n"
        if let stopped = results.stopped {
            body += "<p class=\"errors\">\(HTML.text("Stopped \(stopped.at): \(stopped.reason). New people get the control's flow."))</p>\n"
        }
        body += "<h2>Split</h2>\n"
        if let srm = results.srm {
            let state =
                srm.mismatch
                ? "Sample ratio mismatch: the exposed counts do not match the shares (p \(String(format: "%.2g", srm.pValue))). Do not trust the comparison until the cause is found; then start a new seed."
                : "The exposed counts match the shares (chi-square \(String(format: "%.2f", srm.chiSquare)), p \(String(format: "%.3f", srm.pValue)))."
            body += "<p class=\"\(srm.mismatch ? "errors" : "muted")\">\(HTML.text(state))</p>\n"
        } else {
            body += "<p class=\"muted\">The split is checked once every variant has 8 people exposed.</p>\n"
        }
        body += "<h2>Completion</h2>\n<figure>\(Self.rates(results))<figcaption>"
        body += "Each variant's completion rate (dot). Around the other variants: the control's rate plus the always-valid interval of the difference, "
        body += "so a bar that clears the control's line is a real difference.</figcaption></figure>\n"
        body += "<table><thead><tr><th scope=\"col\">variant</th><th scope=\"col\">flow</th><th scope=\"col\">exposed</th><th scope=\"col\">completed</th>"
        body +=
            "<th scope=\"col\">rate</th><th scope=\"col\">median s</th><th scope=\"col\">difference</th><th scope=\"col\">decision</th></tr></thead><tbody>\n"
        for variant in results.variants {
            let difference =
                variant.vsControl?.interval.map { "[\(Self.points($0[0])), \(Self.points($0[1]))] points" } ?? (variant.vsControl == nil ? "control" : "-")
            body += "<tr><td>\(HTML.text(variant.id))</td><td>\(HTML.text("\(variant.flow) v\(variant.version)"))</td><td>\(variant.exposed)</td>"
            body += "<td>\(variant.completed)</td><td>\(HTML.text(variant.completionRate.map { Charts.percent($0) } ?? "-"))</td>"
            body += "<td>\(HTML.text(variant.secondsToComplete.map { String(format: "%.0f", $0.median) } ?? "-"))</td>"
            body += "<td>\(HTML.text(difference))</td><td>\(HTML.text(variant.vsControl?.decision ?? "-"))</td></tr>\n"
        }
        body += "</tbody></table>\n<h2>Funnels</h2>\n"
        for variant in results.variants {
            let funnel = PlatformProtocol.Funnel(
                started: variant.exposed, completed: variant.completed, deferred: 0, rejected: 0, completionRate: variant.completionRate ?? 0,
                steps: variant.steps, branches: [], skips: [])
            body +=
                "<figure>\(Charts.funnel(funnel, title: "Variant \(variant.id): exposed \(variant.exposed)", id: "variant-\(variant.id)"))<figcaption>\(HTML.text("Variant \(variant.id) (\(variant.flow)): its sessions only."))</figcaption></figure>\n"
        }
        return page("\(tenant) \(results.experiment): platformd dashboard", body)
    }

    static func points(_ value: Double) -> String { String(format: "%+.1f", value * 100) }

    /// Rates on one axis from 0 to 100%: a dot per variant, a bar for the plausible range of a
    /// variant's rate against the control's, and the control's rate as a line.
    static func rates(_ results: ExperimentResults) -> String {
        let labelWidth = 140.0
        let axis = 420.0
        let rowHeight = 34.0
        let height = Double(results.variants.count) * rowHeight + 40
        func x(_ rate: Double) -> Double { labelWidth + axis * min(1, max(0, rate)) }
        let controlRate = results.variants.first { $0.id == results.control }?.completionRate
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="rates-title" viewBox="0 0 \(Int(labelWidth + axis + 170)) \(Int(height))" width="\(Int(labelWidth + axis + 170))" height="\(Int(height))" class="rates">
            <title id="rates-title">\(HTML.text("Completion rate by variant of \(results.experiment)"))</title>
            <line x1="\(labelWidth)" y1="\(height - 18)" x2="\(labelWidth + axis)" y2="\(height - 18)" stroke="#3d4759" class="chart-line"/>
            <text x="\(labelWidth)" y="\(height - 4)" font-size="11" fill="#3d4759" class="chart-muted">0%</text>
            <text x="\(labelWidth + axis)" y="\(height - 4)" font-size="11" text-anchor="end" fill="#3d4759" class="chart-muted">100%</text>

            """
        if let controlRate {
            svg +=
                "<line x1=\"\(x(controlRate))\" y1=\"6\" x2=\"\(x(controlRate))\" y2=\"\(height - 18)\" stroke=\"#a15c00\" class=\"chart-branch\" stroke-dasharray=\"4 3\"><title>\(HTML.text("control \(Charts.percent(controlRate))"))</title></line>\n"
        }
        for (index, variant) in results.variants.enumerated() {
            let y = 12 + Double(index) * rowHeight
            svg += "<g class=\"variant\" data-variant=\"\(HTML.attribute(variant.id))\">"
            svg +=
                "<text x=\"\(labelWidth - 8)\" y=\"\(y + 14)\" font-size=\"12\" text-anchor=\"end\" fill=\"#1d2433\" class=\"chart-text\">\(HTML.text(Charts.clip(variant.id, 20)))</text>"
            if let controlRate, let interval = variant.vsControl?.interval {
                let (low, high) = (x(controlRate + interval[0]), x(controlRate + interval[1]))
                svg +=
                    "<rect x=\"\(low)\" y=\"\(y + 4)\" width=\"\(max(1, high - low))\" height=\"12\" fill=\"#b8c7ee\" class=\"chart-reached\"><title>\(HTML.text("\(variant.id): \(points(interval[0])) to \(points(interval[1])) points against the control"))</title></rect>"
            }
            if let rate = variant.completionRate {
                svg +=
                    "<circle cx=\"\(x(rate))\" cy=\"\(y + 10)\" r=\"5\" fill=\"#1f4fbf\" class=\"chart-left\"><title>\(HTML.text("\(variant.id): \(Charts.percent(rate))"))</title></circle>"
            }
            let words = [variant.completionRate.map { Charts.percent($0) } ?? "no one yet", variant.vsControl?.decision].compactMap { $0 }.joined(
                separator: ", ")
            svg +=
                "<text x=\"\(labelWidth + axis + 10)\" y=\"\(y + 14)\" font-size=\"12\" fill=\"#3d4759\" class=\"chart-muted\">\(HTML.text(words))</text></g>\n"
        }
        return svg + "</svg>"
    }
}
