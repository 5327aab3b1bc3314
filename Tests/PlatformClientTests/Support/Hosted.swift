import Foundation
import PlatformClient
import PlatformClientTesting
import PlatformProtocol
import PlatformTesting

/// The tenants the binary hosts, as `platformd info` lists them (this target links the client,
/// not the server's registry): no client test names a plugin or a tenant. Each plugin's walk
/// through the client is in its own test target.
enum Hosted {
    /// The default tenants, in registration order.
    static func tenants() async throws -> [String] {
        try await listed.value
    }

    /// `platformd info` runs once, waited for on a thread of its own. It used to run in this
    /// property's initializer, blocking one of the cooperative pool's threads (two on the CI
    /// machine) inside a `swift_once` during test discovery; a wait that never ended there stalled
    /// the whole run at its start.
    private static let listed = Task { () throws -> [String] in
        let tenants = try await PlatformdServer.command(["info"]).split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
        guard !tenants.isEmpty else { throw PlatformdServer.Failure(description: "platformd info lists no tenant") }
        return tenants
    }

    /// A tenant, for tests where any will do: the first listed.
    static func tenant() async throws -> String {
        try await tenants()[0]
    }

    /// Submits `view`'s step with `GenericAnswers` (search fields through `flow.search`), trying
    /// the next candidates while the server refuses them; returns the new view and the values sent.
    static func answer(_ client: PlatformClient, _ view: SessionView) async throws -> (SessionView, [String: JSONValue]) {
        var answers = GenericAnswers()
        while true {
            let fields = try (view.step?.fields ?? []).map { try JSONValue(encoding: $0) }
            let values = try await answers.values(for: fields) { field in
                for query in ["Lon", "New", "San", "a"] {
                    if let first = try await client.search(view, field: field, query: query).results.first?.value { return .string(first) }
                }
                return nil
            }
            do {
                return (try await client.submit(view, values: values), values)
            } catch let error as PlatformClientError where error.errorCode == .validationFailed {
                let refused = try error.fieldErrors.map { try JSONValue(encoding: $0) }
                guard answers.retry(after: refused) else { throw error }
            }
        }
    }
}
