import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT start a graceful stop instead of killing the process.
///
/// `install` runs first thing, so a signal during start-up is never fatal: it is remembered until
/// the transport says how to stop (`onStop`). The handler only writes the signal number to a pipe
/// (all a signal handler may safely do); a thread reads the pipe and runs the stop.
enum ShutdownSignals {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    private struct State {
        var stop: (@Sendable (Int32) -> Void)?
        var received: Int32?
    }

    private static let state = Mutex(State())

    static func install() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        writeEnd = fds[1]
        let readEnd = fds[0]
        Thread {
            var number: Int32 = 0
            while true {
                let count = read(readEnd, &number, MemoryLayout<Int32>.size)
                if count < 0 && errno == EINTR { continue }
                guard count == MemoryLayout<Int32>.size else { return }
                let stop = state.withLock { state -> (@Sendable (Int32) -> Void)? in
                    state.received = state.received ?? number
                    return state.stop
                }
                stop?(number)
            }
        }.start()
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber) { received in
                var number = received
                _ = write(ShutdownSignals.writeEnd, &number, MemoryLayout<Int32>.size)
            }
        }
        // A client that goes away must not kill the server: writes fail with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
    }

    /// How to stop; run at once if a signal already came.
    static func onStop(_ stop: @escaping @Sendable (Int32) -> Void) {
        let pending = state.withLock { state -> Int32? in
            state.stop = stop
            return state.received
        }
        if let pending { stop(pending) }
    }
}
