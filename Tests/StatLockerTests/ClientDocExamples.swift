import Foundation
import PlatformClient
import PlatformProtocol

/// The Swift of Docs/clients.md, compiled (never run) so the page cannot drift from the API. It
/// lives with StatLocker's tests because the page's examples walk StatLocker. `render` and `show`
/// stand for the app's UI.
enum ClientDocExamples {
    static func render(_ step: StepView, errors: [FieldError]) async -> (action: SubmitAction, values: [String: JSONValue]) {
        (.continue, [:])
    }

    static func show(_ errors: [FieldError]) {}

    static func connectAndWalk() async throws {
        let client = try await PlatformClient.connect(.unix(path: "/tmp/platformd.sock"))
        _ = try await PlatformClient.connect(.tcp(host: "127.0.0.1", port: 7070))

        var view = try await client.start(tenant: "statlocker", userId: "u1", user: .init(firstName: "Alex"))
        view = try await client.submit(view, values: ["sport": "lacrosse"])
        view = try await client.submit(view, action: .continue, values: [:])  // a content step
        view = try await client.back(view)
        view = try await client.goto(view, stepId: "team_info")  // a review's Edit
        let values: [String: JSONValue] = [
            "gradYear": 2026, "level": "JV", "seasonGoals": ["g-mid-jv-dc-50", ["title": "Win 60% of draws", "targetValue": 60]],
        ]
        _ = values
        _ = view.step?.field("gradYear")?.value
        _ = try await client.call("flow.describe", params: DescribeParams(tenant: "statlocker"), as: FlowDescription.self)
    }

    static func loop(_ client: PlatformClient) async throws {
        var view = try await client.start(tenant: "statlocker", userId: "u1", user: .init(firstName: "Alex"))
        var errors: [FieldError] = []
        while !view.status.isFinal, let step = view.step {
            let answer = await render(step, errors: errors)  // your UI: an action and the values
            do {
                view = try await client.submit(view, action: answer.action, values: answer.values)
                errors = []
            } catch let error as PlatformClientError where error.session != nil {
                // -32004 (refused values), -32003 (stale view), -32005 (not now): show the session as it is.
                errors = error.fieldErrors
                view = error.session ?? view
            }
        }
        if let completion = view.completion { print(completion.message) }
        try await client.close()
    }

    static func errors(_ client: PlatformClient, _ view: SessionView) async throws {
        var view = view
        do {
            view = try await client.submit(view, values: ["sport": "basketball"])
        } catch let error as PlatformClientError {
            switch error.errorCode {
            case .validationFailed?: show(error.fieldErrors)  // "Basketball is coming soon! …"; nothing saved
            case .conflict?: view = error.session ?? view  // another device moved the session on
            default: throw error
            }
        }
        _ = view
    }
}
