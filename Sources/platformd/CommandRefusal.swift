import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

/// A command that cannot do what it was asked with what it was given (a tenant that is not
/// defined or hosted, no active key with that id, no failed delivery of that event, a flow the
/// tenant does not have): one line on stderr, `Error: …`, and exit 64 (EX_USAGE, as
/// Docs/operations.md lists). ArgumentParser's `ValidationError` is for `validate()`: thrown from
/// `run()` it adds the top-level command's usage, which says nothing about the command that failed.
enum CommandRefusal {
    /// Writes the line; the returned exit code is what to throw.
    static func exit(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return ExitCode(64)
    }
}

/// A command that failed for a reason that is not its input (the bench's server did not
/// start, a socket failed): `Error: …` on stderr and exit 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
