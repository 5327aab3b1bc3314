/// A flow as data and as a Mermaid flowchart, for `flow.describe` and `platformd describe`.
public struct FlowDiagram: Sendable {
    public let flow: Flow
    public let plugin: any OnboardingPlugin

    public init(flow: Flow, plugin: any OnboardingPlugin) {
        self.flow = flow
        self.plugin = plugin
    }

    var context: StepContext {
        StepContext(tenant: plugin.id, displayName: plugin.defaultDisplayName, now: .init(timeIntervalSince1970: 0))
    }

    public var json: [String: JSONValue] {
        let context = self.context
        return [
            "tenant": .string(plugin.id), "flow": .string(flow.id),
            "steps": .array(flow.steps.map { step in
                [
                    "id": .string(step.id), "kind": .string(step.kind.rawValue),
                    "title": .string(step.copy(in: context).title),
                    "fields": .array(step.fields(in: context).map { .string($0.id) }),
                ]
            }),
            "edges": .array(flow.edges.map { from, edge in
                var object: [String: JSONValue] = ["from": .string(from), "to": .string(edge.to)]
                if let when = edge.when { object["when"] = .string(when) }
                return .object(object)
            }),
            "mermaid": .string(mermaid),
        ]
    }

    /// A `flowchart TD` with one node per step (shaped by kind) and labelled branch edges.
    public var mermaid: String {
        let context = self.context
        var lines = ["flowchart TD"]
        for step in flow.steps {
            let title = Self.escape(step.copy(in: context).title)
            let label = "\(step.id)<br/>\(title)"
            switch step.kind {
            case .processing: lines.append("    \(step.id)[[\"\(label)\"]]")
            case .content: lines.append("    \(step.id)([\"\(label)\"])")
            case .review: lines.append("    \(step.id){{\"\(label)\"}}")
            case .question, .checklist: lines.append("    \(step.id)[\"\(label)\"]")
            }
        }
        lines.append("    done((\"completed\"))")
        for (from, edge) in flow.edges {
            if let when = edge.when {
                lines.append("    \(from) -->|\"\(Self.escape(when))\"| \(edge.to)")
            } else {
                lines.append("    \(from) --> \(edge.to)")
            }
        }
        if let last = flow.steps.last { lines.append("    \(last.id) --> done") }
        return lines.joined(separator: "\n")
    }

    /// Mermaid labels are quoted; quotes inside them are written as entities.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "#quot;")
            .replacingOccurrences(of: "\n", with: " ")
    }
}
