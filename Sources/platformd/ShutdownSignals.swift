import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT start a graceful stop instead of killing the process.
///
/// The handler only writes the signal number to a pipe (all a signal handler may safely do); a
/// thread reads the pipe and runs the stop. Installing the handler with `signal` swaps the action
/// atomically, so no signal arriving after `install` is lost.
enum ShutdownSignals {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        writeEnd = fds[1]
        let readEnd = fds[0]
        let reader = Thread {
            var number: Int32 = 0
            while true {
                let count = read(readEnd, &number, MemoryLayout<Int32>.size)
                if count < 0 && errno == EINTR { continue }
                guard count == MemoryLayout<Int32>.size else { return }
                handler(number)
            }
        }
        reader.start()
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber) { received in
                var number = received
                _ = write(ShutdownSignals.writeEnd, &number, MemoryLayout<Int32>.size)
            }
        }
        // A client that goes away must not kill the server: writes fail with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
    }
}
