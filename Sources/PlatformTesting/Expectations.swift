import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import Testing

/// Expects a JSON-RPC error reply line's JSON with `code` and `id` (null unless given), and no result.
public func expectError(
    _ reply: JSONValue, code: Int, id: JSONValue = .null,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply["jsonrpc"] == "2.0", "not a JSON-RPC 2.0 reply: \(reply.serialized())", sourceLocation: sourceLocation)
    #expect(reply["result"] == nil, "an error reply has no result: \(reply.serialized())", sourceLocation: sourceLocation)
    #expect(reply["error"]?["code"]?.intValue == code, "expected error \(code): \(reply.serialized())", sourceLocation: sourceLocation)
    #expect(reply["error"]?["message"]?.stringValue != nil, "error without message: \(reply.serialized())", sourceLocation: sourceLocation)
    #expect(reply["id"] == id, "expected id \(id.serialized()): \(reply.serialized())", sourceLocation: sourceLocation)
}

/// Expects `error` to be the RPC error `code` and, when `fields` is given, to list field errors on
/// exactly those fields (in any order; `nil` in the list for an error that belongs to no field),
/// with `fieldCodes` when given. Returns the error, for further checks.
@discardableResult
public func expectRPCError(
    _ error: RPCError?, _ code: ErrorCode, fields: [String?]? = nil, fieldCodes: [FieldErrorCode]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> RPCError? {
    guard let error else {
        Issue.record("expected error \(code.rawValue) (\(code.title)), the call succeeded", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error.code == code.rawValue, "expected \(code.rawValue) (\(code.title)): \(error.object.wireJSON.serialized())", sourceLocation: sourceLocation)
    if let fields {
        let got = error.fieldErrors.map(\.field).map { $0 ?? "<none>" }.sorted()
        #expect(got == fields.map { $0 ?? "<none>" }.sorted(), "field errors: \(error.fieldErrors)", sourceLocation: sourceLocation)
    }
    if let fieldCodes {
        #expect(error.fieldErrors.map(\.code) == fieldCodes, "field error codes: \(error.fieldErrors)", sourceLocation: sourceLocation)
    }
    return error
}

/// Expects a view to stand on `step` (when given) with `status` (when given), and no step errors
/// unless `errors` names the fields they must be on.
public func expectView(
    _ view: SessionView, step: String? = nil, status: SessionStatus? = nil, errors: [String?] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    if let step {
        #expect(view.stepId == step, "expected step \(step): \(view)", sourceLocation: sourceLocation)
    }
    if let status {
        #expect(view.status == status, "expected status \(status.rawValue): \(view)", sourceLocation: sourceLocation)
    }
    #expect(
        view.stepErrors.map(\.field).map { $0 ?? "<none>" }.sorted() == errors.map { $0 ?? "<none>" }.sorted(),
        "step errors: \(view.stepErrors)", sourceLocation: sourceLocation)
}

extension FlowDriver {
    /// Submits `values` that must be refused with `code` (validation failed by default) and, when
    /// `fields` is given, field errors on exactly those fields; returns the error.
    @discardableResult
    public func expectRefusal(
        _ view: SessionView, _ values: [String: JSONValue] = [:], action: String = "continue",
        code: ErrorCode = .validationFailed, fields: [String?]? = nil, fieldCodes: [FieldErrorCode]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> RPCError? {
        expectRPCError(await refuse(view, values, action: action), code, fields: fields, fieldCodes: fieldCodes, sourceLocation: sourceLocation)
    }

    /// Calls `method`, which must fail with `code` (and field errors on `fields`, when given); returns the error.
    @discardableResult
    public func expectError(
        _ method: String, _ params: [String: JSONValue] = [:], code: ErrorCode, fields: [String?]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> RPCError? {
        expectRPCError(await error(method, params), code, fields: fields, sourceLocation: sourceLocation)
    }

    /// Expects `gate.check` to block `action` for `userId` by the gate `gate` (`onboarding`,
    /// `tier2` …); returns the decision, for its copy and requirements.
    @discardableResult
    public func expectBlocked(
        _ userId: String, _ action: String, by gate: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GateDecision {
        let decision = try await checkGate(userId, action)
        #expect(!decision.allowed, "\(action): \(decision)", sourceLocation: sourceLocation)
        #expect(decision.gate == gate, "\(action): \(decision)", sourceLocation: sourceLocation)
        return decision
    }

    /// Expects `gate.check` to let `userId` do `action`; returns the decision.
    @discardableResult
    public func expectAllowed(
        _ userId: String, _ action: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GateDecision {
        let decision = try await checkGate(userId, action)
        #expect(decision.allowed, "\(action): \(decision)", sourceLocation: sourceLocation)
        return decision
    }
}

/// Starts `platformd serve` with `file` (the text of a tenants file) and expects it refused the
/// way every unusable file is: exit code 78, nothing on stdout, and one line on stderr naming the
/// file, the `tenant` and the `key` (when given) and saying `reason`.
public func expectTenantsFileRefused(
    _ file: String, tenant: String?, key: String?, reason: String, fileName: String = "tenants.json",
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    try await withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent(fileName)
        try Data(file.utf8).write(to: url)
        let path = url.path
        try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", path]) { server in
            let exit = try await server.waitForExit()
            #expect(exit == .init(status: 78, signaled: false), sourceLocation: sourceLocation)
            let lines = server.stderrText.split(separator: "\n")
            #expect(lines.count == 1, "\(server.stderrText)", sourceLocation: sourceLocation)
            let line = String(lines.first ?? "")
            #expect(line.contains(path), sourceLocation: sourceLocation)
            if let tenant { #expect(line.contains("tenant \(tenant)"), "\(line)", sourceLocation: sourceLocation) }
            if let key { #expect(line.contains("key \(key)"), "\(line)", sourceLocation: sourceLocation) }
            #expect(line.contains(reason), "\(line)", sourceLocation: sourceLocation)
            #expect(server.stdoutBytes.isEmpty, sourceLocation: sourceLocation)
        }
    }
}
