import Foundation
import PlatformCore

/// Work that parks its thread (opening or closing a SQLite database, a backup, a child process's
/// exit, a pipe that may be full) runs on a thread of its own, never on Swift's cooperative pool.
/// That pool has one thread per core; a thread parked in it is lost to every task until the wait
/// ends, and if what it waits for needs a task to run (a reader connection released when a read
/// resumes), two parked threads on two cores stop the server for good.
///
/// A thread per call: this is for calls that are rare (start, stop, a backup) or long, not for
/// each request; the request path's waits are asynchronous (GRDB's async reads and writes run
/// on its own dispatch queues).
public enum BlockingWork {
    /// Runs `body` on a new thread and returns its result; the caller's task is suspended, not
    /// parked, meanwhile.
    public static func run<T: Sendable>(
        _ name: String = "platformd.blocking", _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = name
            thread.start()
        }
    }

    /// `run` for work that cannot fail.
    public static func run<T: Sendable>(_ name: String = "platformd.blocking", _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = name
            thread.start()
        }
    }
}
