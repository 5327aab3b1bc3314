import Foundation
import PlatformCore
import PlatformProtocol
import PlatformServer
import PlatformStorage

/// The dashboard's pictures, drawn as SVG by the server: no script, no file from elsewhere.
enum Charts {
    /// A flow as boxes, one per step in the flow's order, top to bottom; the way on drawn straight
    /// down, every other edge (branches, jumps, ends) as a labelled curve on the right.
    static func diagram(_ description: FlowDescription) -> String {
        let steps = description.steps
        let boxWidth = 300.0
        let boxHeight = 46.0
        let gap = 28.0
        let left = 20.0
        let rowHeight = boxHeight + gap
        let row = Dictionary(steps.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
        let side = description.edges.filter { edge in
            guard let from = row[edge.from], let to = row[edge.to] else { return true }
            return to != from + 1
        }
        let width = left + boxWidth + 60 + Double(max(1, side.count)) * 26 + 220
        let height = Double(steps.count) * rowHeight + 60
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="diagram-title" viewBox="0 0 \(Int(width)) \(Int(height))" width="\(Int(width))" height="\(Int(height))" class="diagram">
            <title id="diagram-title">\(HTML.text("Flow \(description.flow) of \(description.tenant): \(steps.count) steps"))</title>
            <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="chart-line-fill" d="M0,0 L10,5 L0,10 z" fill="#3d4759"/></marker></defs>

            """
        for (index, step) in steps.enumerated() {
            let y = 20 + Double(index) * rowHeight
            svg += "<g class=\"step\" data-step=\"\(HTML.attribute(step.id))\">"
            svg +=
                "<rect x=\"\(left)\" y=\"\(y)\" width=\"\(boxWidth)\" height=\"\(boxHeight)\" rx=\"8\" fill=\"#e7ebf3\" stroke=\"#1f4fbf\" class=\"chart-box\"/>"
            svg +=
                "<text x=\"\(left + 10)\" y=\"\(y + 19)\" font-size=\"13\" font-weight=\"600\" fill=\"#1d2433\" class=\"chart-text\">\(HTML.text(Self.clip(step.id, 38)))</text>"
            svg +=
                "<text x=\"\(left + 10)\" y=\"\(y + 36)\" font-size=\"12\" fill=\"#3d4759\" class=\"chart-muted\">\(HTML.text(Self.clip(Self.withoutEmoji(step.title), 44)))</text></g>\n"
            if let next = steps.indices.contains(index + 1) ? steps[index + 1] : nil,
                description.edges.contains(where: { $0.from == step.id && $0.to == next.id })
            {
                svg +=
                    "<line x1=\"\(left + boxWidth / 2)\" y1=\"\(y + boxHeight)\" x2=\"\(left + boxWidth / 2)\" y2=\"\(y + rowHeight - 2)\" stroke=\"#3d4759\" class=\"chart-line\" marker-end=\"url(#arrow)\"/>\n"
            }
        }
        for (lane, edge) in side.enumerated() {
            let x = left + boxWidth + 30 + Double(lane) * 26
            let fromY = 20 + Double(row[edge.from] ?? 0) * rowHeight + boxHeight / 2
            let toY = row[edge.to].map { 20 + Double($0) * rowHeight + boxHeight / 2 } ?? (height - 20)
            svg +=
                "<path class=\"edge chart-branch\" d=\"M\(left + boxWidth),\(fromY) C\(x),\(fromY) \(x),\(toY) \(left + boxWidth + 4),\(toY)\" fill=\"none\" stroke=\"#a15c00\" stroke-dasharray=\"5 3\" marker-end=\"url(#arrow)\"/>"
            let label = [edge.when, row[edge.to] == nil ? "→ \(edge.to)" : nil].compactMap { $0 }.joined(separator: " ")
            if !label.isEmpty {
                svg +=
                    "<text x=\"\(x + 6)\" y=\"\((fromY + toY) / 2)\" font-size=\"11\" fill=\"#6b3d00\" class=\"chart-branch-text\">\(HTML.text(Self.clip(label, 34)))</text>"
            }
            svg += "\n"
        }
        return svg + "</svg>"
    }

    /// The diagram's caption: it speaks of dashed curves only where the diagram draws some.
    static func diagramCaption(_ description: FlowDescription) -> String {
        let straight = zip(description.steps, description.steps.dropFirst()).map { ($0.id, $1.id) }
        let hasSideEdges = description.edges.contains { edge in !straight.contains { $0 == (edge.from, edge.to) } }
        return hasSideEdges ? "Steps in order; dashed curves are branches and jumps." : "Steps in order; this flow has no branches or jumps."
    }

    /// A funnel as horizontal bars, one row per step: how many reached it (light) and how many
    /// went on from it (dark), with both and the difference in words.
    static func funnel(_ funnel: PlatformProtocol.Funnel, title: String, id: String) -> String {
        let steps = funnel.steps
        let labelWidth = 170.0
        let barWidth = 360.0
        // Room for the longest words a row can have ("100000 reached, 100000 went on, 100000 did
        // not (100%)" at 12px), so none is clipped.
        let words = 300.0
        let rowHeight = 30.0
        let top = max(1, steps.map(\.reached).max() ?? 1, funnel.started)
        let height = Double(steps.count) * rowHeight + 50
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="funnel-\(HTML.attribute(id))" viewBox="0 0 \(Int(labelWidth + barWidth + words)) \(Int(height))" width="\(Int(labelWidth + barWidth + words))" height="\(Int(height))" class="funnel">
            <title id="funnel-\(HTML.attribute(id))">\(HTML.text(title))</title>
            <text x="0" y="16" font-size="12" fill="#3d4759" class="chart-muted">\(HTML.text("started \(funnel.started), completed \(funnel.completed) (\(Self.percent(funnel.completionRate)))"))</text>

            """
        for (index, step) in steps.enumerated() {
            let y = 30 + Double(index) * rowHeight
            let reached = barWidth * Double(step.reached) / Double(top)
            let left = barWidth * Double(step.left) / Double(top)
            // The words use the two numbers the bars draw: of those who reached the step, those who
            // never went on from it (some may still be on it).
            let stayed = max(0, step.reached - step.left)
            let share = step.reached > 0 ? Double(stayed) / Double(step.reached) : 0
            svg += "<g class=\"bar\" data-step=\"\(HTML.attribute(step.id))\" data-reached=\"\(step.reached)\" data-left=\"\(step.left)\">"
            svg +=
                "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" font-size=\"12\" text-anchor=\"end\" fill=\"#1d2433\" class=\"chart-text\">\(HTML.text(Self.clip(step.id, 24)))</text>"
            svg +=
                "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(reached)\" height=\"20\" fill=\"#b8c7ee\" class=\"chart-reached\"><title>\(HTML.text("\(step.id): reached \(step.reached)"))</title></rect>"
            svg +=
                "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(left)\" height=\"20\" fill=\"#1f4fbf\" class=\"chart-left\"><title>\(HTML.text("\(step.id): went on \(step.left)"))</title></rect>"
            svg +=
                "<text x=\"\(labelWidth + barWidth + 8)\" y=\"\(y + 17)\" font-size=\"12\" fill=\"#3d4759\" class=\"chart-muted\">\(HTML.text("\(step.reached) reached, \(step.left) went on, \(stayed) did not (\(Self.percent(share)))"))</text></g>\n"
        }
        return svg + "</svg>"
    }

    /// A title as an SVG text draws it: emoji out (no emoji font is assumed, and a box in their
    /// place says nothing), the spaces around them closed up.
    static func withoutEmoji(_ text: String) -> String {
        String(text.filter { !HTML.isEmoji($0) }).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    static func percent(_ fraction: Double) -> String {
        "\(Int((fraction * 100).rounded()))%"
    }

    static func clip(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }
}
