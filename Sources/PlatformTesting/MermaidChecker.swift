/// Checks the Mermaid flowcharts platformd prints: a `flowchart` header, nodes declared once with
/// a quoted label, edges between declared nodes, branch labels quoted. It is the subset of
/// Mermaid's grammar FlowDiagram writes, checked strictly enough to catch a broken chart.
public enum MermaidChecker {
    public struct Chart: Sendable {
        public var nodes: [String: String] = [:]
        public var edges: [(from: String, to: String, label: String?)] = []
    }

    /// The parsed chart, or the problems found.
    public static func check(_ text: String) -> Result<Chart, Problems> {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var problems: [String] = []
        var chart = Chart()
        guard lines.first.map({ ["flowchart TD", "flowchart LR", "graph TD"].contains($0) }) == true else {
            return .failure(Problems(messages: ["the first line must be a flowchart header, not \(lines.first ?? "nothing")"]))
        }
        lines.removeFirst()
        var pendingEdges: [(Int, String, String, String?)] = []
        for (offset, raw) in lines.enumerated() {
            let number = offset + 2
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if let edge = parseEdge(line) {
                pendingEdges.append((number, edge.from, edge.to, edge.label))
            } else if let node = parseNode(line) {
                if chart.nodes[node.id] != nil { problems.append("line \(number): node \(node.id) declared twice") }
                chart.nodes[node.id] = node.label
            } else {
                problems.append("line \(number): not a node or an edge: \(line)")
            }
        }
        for (number, from, to, label) in pendingEdges {
            for id in [from, to] where chart.nodes[id] == nil {
                problems.append("line \(number): edge uses undeclared node \(id)")
            }
            chart.edges.append((from, to, label))
        }
        return problems.isEmpty ? .success(chart) : .failure(Problems(messages: problems))
    }

    public struct Problems: Error, CustomStringConvertible {
        public var messages: [String]
        public var description: String { messages.joined(separator: "\n") }
    }

    static func isIdentifier(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && text.first?.isLetter == true
    }

    /// `id["label"]`, `id(["label"])`, `id[["label"]]`, `id{{"label"}}`, `id(("label"))`.
    static func parseNode(_ line: String) -> (id: String, label: String)? {
        let shapes = [("[[\"", "\"]]"), ("([\"", "\"])"), ("{{\"", "\"}}"), ("((\"", "\"))"), ("[\"", "\"]")]
        for (open, close) in shapes {
            guard let start = line.range(of: open), line.hasSuffix(close) else { continue }
            let id = line[..<start.lowerBound]
            let label = line[start.upperBound..<line.index(line.endIndex, offsetBy: -close.count)]
            guard isIdentifier(id), !label.contains("\"") else { return nil }
            return (String(id), String(label))
        }
        return nil
    }

    /// `a --> b` or `a -->|"label"| b`.
    static func parseEdge(_ line: String) -> (from: String, to: String, label: String?)? {
        guard let arrow = line.range(of: " -->") else { return nil }
        let from = line[..<arrow.lowerBound]
        var rest = line[arrow.upperBound...]
        var label: String?
        if rest.hasPrefix("|\"") {
            guard let end = rest.range(of: "\"| ") else { return nil }
            let text = rest[rest.index(rest.startIndex, offsetBy: 2)..<end.lowerBound]
            guard !text.contains("\"") else { return nil }
            label = String(text)
            rest = rest[end.upperBound...]
        } else {
            guard rest.hasPrefix(" ") else { return nil }
            rest = rest.dropFirst()
        }
        guard isIdentifier(from), isIdentifier(rest) else { return nil }
        return (String(from), String(rest), label)
    }
}
