import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore

/// Python 3 as an independent checker of what the real binary serves (jsonschema, the official
/// MCP SDK). Tests that need it declare it (`.enabled { await Python.has(…) }`), so a run
/// without it reports them skipped.
public enum Python {
    /// Runs `python3` with `arguments` to completion; its exit status and its stdout and stderr
    /// together. The wait is on a thread of its own, never on the tests' cooperative pool, so a
    /// script that runs for seconds holds up no other test.
    public static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run("/usr/bin/env", ["python3"] + arguments)
    }

    /// `run`, at the lowest CPU priority (`nice -n 19`), for a script whose children are heavy (a
    /// browser auditing every page): on two cores the rest of the suite, databases and servers
    /// included, goes first instead of waiting behind it past its time limits.
    public static func runYielding(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run("/usr/bin/env", ["nice", "-n", "19", "python3"] + arguments)
    }

    /// Whether `python3` can import `module`.
    public static func has(_ module: String) async -> Bool {
        (try? await run(["-c", "import \(module)"]))?.status == 0
    }

    /// A script of PlatformTesting's `Scripts` folder.
    public static func script(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/\(name)")
    }

    /// Replays each tenant's `walks` (the values of each accepted submit, in order) through
    /// `platformd mcp`'s `onboarding_answer`, checking with jsonschema that every tool's input
    /// schema is valid JSON Schema and that the answer tool's schema accepts each answer
    /// (`Scripts/mcp_answer_schemas.py`). Returns the script's exit status and output, whose last
    /// line is "N passed, N failed". Needs `jsonschema` (`has("jsonschema")`).
    public static func checkMCPAnswerSchemas(_ walks: [String: [[String: JSONValue]]]) async throws -> (status: Int32, output: String) {
        guard let binary = PlatformdProcess.binaryURL else {
            throw PlatformdProcess.Failure(description: "platformd binary not found next to the test bundle; set PLATFORMD_BINARY")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("walks-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let json = JSONValue.object(walks.mapValues { .array($0.map { .object($0) }) })
        try Data(json.serialized().utf8).write(to: file)
        return try await run([script("mcp_answer_schemas.py").path, binary.path, file.path])
    }
}
