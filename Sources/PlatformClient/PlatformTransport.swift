/// A line-oriented connection to a `platformd` server: what `PlatformClient` needs of a socket.
///
/// The built-in one (`PlatformClient.connect(.unix(path:))`, `.tcp(host:port:)`) uses SwiftNIO.
/// An app plugs in its own (Network.framework, a WebSocket, an in-process pipe for tests) by
/// implementing these three methods and passing it to `PlatformClient(transport:)`.
///
/// The client calls `send` from one task at a time, in request order, and `receiveLine` from
/// one task at a time (its reader), so a transport needs no ordering of its own: it must only
/// write each line's bytes in full before the next line's. `LineSplitter` frames a byte stream
/// into lines for a transport whose connection hands it chunks.
public protocol PlatformTransport: Sendable {
    /// Writes one request line: the JSON text followed by its `"\n"`.
    func send(_ line: [UInt8]) async throws

    /// The next reply line without its `"\n"` (or `"\r\n"`), or nil once the server closed the
    /// connection. A throw ends the connection as well.
    func receiveLine() async throws -> [UInt8]?

    /// Closes the connection. A `receiveLine` waiting then returns nil (or throws). Closing twice
    /// is not an error.
    func close() async throws
}

/// Splits a byte stream into lines at `"\n"`, dropping a `"\r"` before it, with a limit on a
/// line's length. Feed it what the connection delivers and take the lines out; the built-in
/// transport frames with it too.
///
/// ```swift
/// var splitter = LineSplitter(maxLineBytes: PlatformClient.Configuration.defaultMaxLineBytes)
/// splitter.append(chunk)
/// while let line = try splitter.nextLine() { ... }
/// ```
public struct LineSplitter: Sendable {
    public struct LineTooLong: Error, Sendable, CustomStringConvertible {
        public var limit: Int
        public var description: String { "a line is longer than \(limit) bytes" }
    }

    public let maxLineBytes: Int
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// `buffer[start..<scanned]` holds no newline, so each byte is searched once.
    private var scanned = 0

    public init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Adds received bytes.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line, without its line ending; nil until its newline has arrived.
    /// Throws `LineTooLong` when a line (finished or not) is longer than the limit.
    public mutating func nextLine() throws -> [UInt8]? {
        guard let newline = buffer[scanned...].firstIndex(of: 0x0A) else {
            scanned = buffer.count
            if scanned - start > maxLineBytes { throw LineTooLong(limit: maxLineBytes) }
            return nil
        }
        var end = newline
        if end > start && buffer[end - 1] == 0x0D { end -= 1 }
        guard end - start <= maxLineBytes else { throw LineTooLong(limit: maxLineBytes) }
        let line = Array(buffer[start..<end])
        start = newline + 1
        scanned = start
        return line
    }

    /// What is left after the last newline (a last line the peer ended without one, at EOF), or
    /// nil when nothing is; empties the splitter.
    public mutating func remainder() -> [UInt8]? {
        defer {
            buffer = []
            start = 0
            scanned = 0
        }
        return start < buffer.count ? Array(buffer[start...]) : nil
    }
}
