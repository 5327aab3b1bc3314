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

    /// The contract's `flow.describe` result.
    public var description: FlowDescription {
        let context = self.context
        return FlowDescription(
            tenant: plugin.id, flow: flow.id,
            steps: flow.steps.map { step in
                FlowDescription.Step(
                    id: step.id, kind: step.kind, title: step.copy(in: context).title,
                    fields: step.fields(in: context).map(\.id))
            },
            edges: flow.edges.map { FlowDescription.Edge(from: $0.from, to: $0.edge.to, when: $0.edge.when) },
            mermaid: mermaid, intro: plugin.intro)
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
        for id in flow.finishingSteps { lines.append("    \(id) --> done") }
        return lines.joined(separator: "\n")
    }

    /// Mermaid labels are quoted; quotes inside them are written as entities.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "#quot;")
            .replacingOccurrences(of: "\n", with: " ")
    }
}
