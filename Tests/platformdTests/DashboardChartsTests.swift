import Foundation
import PlatformCore
import PlatformProtocol
import Testing

@testable import PlatformTransports

/// The dashboard's charts say what their numbers say: a funnel row's words are its two bars and
/// their difference, with room to be read whole; the diagram speaks of branches only where it
/// draws some; colors follow the page's scheme.
@Suite struct DashboardChartsTests {
    @Test func aFunnelRowsWordsMatchItsBars() {
        // Two people reached the step, one went on; the other came back to it (so the stored
        // `dropped` counts two): the words speak of the bars, not of last arrivals.
        let funnel = PlatformProtocol.Funnel(
            started: 2, completed: 0, deferred: 0, rejected: 0, completionRate: 0,
            steps: [.init(id: "first", reached: 2, left: 1, dropped: 2, medianSeconds: nil)], branches: [], skips: [])
        let svg = Charts.funnel(funnel, title: "t", id: "x")
        #expect(svg.contains(">2 reached, 1 went on, 1 did not (50%)</text>"))
        #expect(svg.contains("width=\"830\""), "the words' column fits its longest row")
        #expect(svg.contains("class=\"chart-text\"") && svg.contains("class=\"chart-left\""))
    }

    @Test func diagramTitlesDropEmojiRatherThanDrawBoxes() {
        #expect(Charts.withoutEmoji("Hey Athlete 👋 What sport do you play?") == "Hey Athlete What sport do you play?")
        #expect(Charts.withoutEmoji("Step 1 of 8") == "Step 1 of 8", "digits are not emoji")
    }

    @Test func theDiagramsCaptionSpeaksOfBranchesOnlyWhereThereAreSome() {
        let steps = ["a", "b", "c"].map { FlowDescription.Step(id: $0, kind: .question, title: $0, fields: []) }
        let straight = FlowDescription(
            tenant: "t", flow: "f", steps: steps, edges: [.init(from: "a", to: "b"), .init(from: "b", to: "c")], mermaid: "")
        #expect(Charts.diagramCaption(straight) == "Steps in order; this flow has no branches or jumps.")
        let branched = FlowDescription(
            tenant: "t", flow: "f", steps: steps, edges: [.init(from: "a", to: "b"), .init(from: "a", to: "c", when: "x"), .init(from: "b", to: "c")],
            mermaid: "")
        #expect(Charts.diagramCaption(branched) == "Steps in order; dashed curves are branches and jumps.")
        // Every tag of the drawing has each attribute once (a second class was once added beside
        // a branch's own, which a strict parser drops).
        let svg = Charts.diagram(branched)
        #expect(svg.contains("class=\"edge chart-branch\""))
        for tag in svg.split(separator: "<").dropFirst() {
            let head = tag.prefix { $0 != ">" }
            let names = head.split(separator: " ").dropFirst().compactMap { $0.split(separator: "=").first.map(String.init) }
            #expect(Set(names).count == names.count, "\(head)")
        }
    }
}
