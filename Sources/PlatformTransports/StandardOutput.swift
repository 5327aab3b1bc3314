import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// stdout, written directly: the protocol channel on stdio, and the result of the one-shot
/// commands (info, describe, funnel). Logs never come here.
package enum StandardOutput {
    /// Writes the line and its newline; false when stdout can no longer be written.
    @discardableResult
    package static func writeLine(_ bytes: [UInt8]) -> Bool {
        var remaining = bytes + [0x0A]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            remaining.removeFirst(written)
        }
        return true
    }
}

extension StandardOutput {
    package static func writeLine(_ text: String) {
        writeLine(Array(text.utf8))
    }
}

/// stdout for a server's replies: a client that stops reading fills the pipe and `write(2)`
/// parks the writing thread, so replies are written on a serial queue of their own, never on a
/// cooperative thread; the request loop awaits each write, which keeps replies in order and
/// stops reading a client that does not read.
package final class ReplyWriter: Sendable {
    private let queue = DispatchQueue(label: "platformd.stdout")

    /// Writes each line and its newline, in order; false when stdout can no longer be written.
    package func write(_ lines: [[UInt8]]) async -> Bool {
        guard !lines.isEmpty else { return true }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: lines.allSatisfy { StandardOutput.writeLine($0) }) }
        }
    }
}
