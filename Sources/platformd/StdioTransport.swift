import Foundation
import Logging
import PlatformCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests on stdin, replies on stdout, handled one at a time so replies keep request order.
struct StdioTransport {
    let server: RPCServer
    let maxLineBytes: Int
    let logger: Logger

    func run() async {
        let (frames, continuation) = AsyncStream<LineFramer.Frame>.makeStream()
        let reader = Thread { [maxLineBytes] in
            var framer = LineFramer(maxLineBytes: maxLineBytes)
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                for frame in framer.push(chunk[0..<count]) { continuation.yield(frame) }
            }
            for frame in framer.finish() { continuation.yield(frame) }
            continuation.finish()
        }
        reader.start()
        ShutdownSignals.install { signal in
            logger.info("received signal \(signal): finishing in-flight work")
            continuation.finish()
        }
        for await frame in frames {
            let reply: JSONValue?
            switch frame {
            case .line(let line): reply = await server.reply(to: line)
            case .tooLong: reply = RPCServer.tooLarge(limit: maxLineBytes)
            }
            if let reply, !StandardOutput.writeLine(reply.serializedBytes()) {
                logger.notice("stdout is closed: stopping")
                break
            }
        }
    }
}

enum StandardOutput {
    /// Writes the line and its newline; false when stdout can no longer be written.
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
