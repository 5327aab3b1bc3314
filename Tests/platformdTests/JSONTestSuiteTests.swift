import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

/// JSONTestSuite's parsing cases through the real binary, one connection for all of them.
@Suite("JSONTestSuite over stdio")
struct JSONTestSuiteTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("Fixtures/JSONTestSuite/test_parsing")

    struct Case: Sendable {
        let name: String
        let line: [UInt8]
    }

    /// Cases that fit on one line (a single trailing newline is the line's end, not content).
    static func cases(prefix: String) throws -> [Case] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }
            .sorted()
            .compactMap { name in
                var bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
                if bytes.last == 0x0A { bytes.removeLast() }
                return bytes.contains(0x0A) ? nil : Case(name: name, line: bytes)
            }
    }

    static func isBlank(_ line: [UInt8]) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// Sends a case then a probe; returns the replies that came before the probe's.
    static func replies(to test: Case, on server: PlatformdProcess, probe: Int) async throws -> [JSONValue] {
        try server.write(test.line + [0x0A])
        try server.send(#"{"jsonrpc":"2.0","id":"probe-\#(probe)","method":"platform.info"}"#)
        var replies: [JSONValue] = []
        while true {
            let reply = try await server.readReply()
            if reply["id"] == .string("probe-\(probe)") { return replies }
            replies.append(reply)
        }
    }

    @Test func everyRejectedCaseIsAParseErrorAndTheConnectionKeepsAnswering() async throws {
        let cases = try Self.cases(prefix: "n_")
        #expect(cases.count > 150)
        try await PlatformdProcess.withServer { server in
            for (index, test) in cases.enumerated() {
                let replies = try await Self.replies(to: test, on: server, probe: index)
                if Self.isBlank(test.line) {
                    // Empty or whitespace-only: the framing's blank-line rule applies first.
                    #expect(replies.isEmpty, "\(test.name) is a blank line and gets no reply")
                    continue
                }
                #expect(replies.count == 1, "\(test.name): \(replies)")
                #expect(replies.first?["error"]?["code"] == -32700, "\(test.name): \(replies)")
                #expect(replies.first?["id"] == .null, "\(test.name)")
            }
        }
    }

    @Test func everyAcceptedCaseParses() async throws {
        let cases = try Self.cases(prefix: "y_")
        #expect(cases.count > 90)
        try await PlatformdProcess.withServer { server in
            for (index, test) in cases.enumerated() {
                let replies = try await Self.replies(to: test, on: server, probe: index)
                // Valid JSON that is not a request: an error, but never a parse error.
                #expect(replies.count == 1, "\(test.name): \(replies)")
                let errors = replies.flatMap { $0.arrayValue ?? [$0] }.compactMap { $0["error"]?["code"] }
                #expect(!errors.contains(-32700), "\(test.name) must parse: \(replies)")
            }
        }
    }

    @Test func implementationDefinedCasesNeverBreakTheConnection() async throws {
        let cases = try Self.cases(prefix: "i_")
        try await PlatformdProcess.withServer { server in
            for (index, test) in cases.enumerated() {
                let replies = try await Self.replies(to: test, on: server, probe: index)
                #expect(replies.count == 1, "\(test.name): \(replies)")
            }
        }
    }
}
