#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// stdout, written directly: the protocol channel on stdio, and the result of the one-shot
/// commands (info, describe, funnel). Logs never come here.
enum StandardOutput {
    /// Writes the line and its newline; false when stdout can no longer be written.
    @discardableResult
    static func writeLine(_ bytes: [UInt8]) -> Bool {
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
    static func writeLine(_ text: String) {
        writeLine(Array(text.utf8))
    }
}
