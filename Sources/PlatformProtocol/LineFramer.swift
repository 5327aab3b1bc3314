#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Splits a byte stream into lines (`\n`, with `\r\n` accepted), with a maximum line length:
/// an over-long line is reported once and skipped up to its newline, and framing goes on.
///
/// The rules live in ``Scanner``, which works on bytes its caller holds; `LineFramer` holds them in
/// an array (the stdio transport), the socket transport's decoder in its `ByteBuffer`.
public struct LineFramer: Sendable {
    public enum Frame: Sendable, Hashable {
        case line([UInt8])
        /// A line longer than the limit was dropped.
        case tooLong
    }

    public var maxLineBytes: Int { scanner.maxLineBytes }
    private var scanner: Scanner
    /// The current line's bytes from earlier pushes: at most `maxLineBytes + 1` of them.
    private var pending: [UInt8] = []

    public init(maxLineBytes: Int) {
        scanner = Scanner(maxLineBytes: maxLineBytes)
    }

    /// Feeds bytes; returns the frames they complete.
    public mutating func push<Bytes: Collection>(_ bytes: Bytes) -> [Frame] where Bytes.Element == UInt8 {
        if let frames = bytes.withContiguousStorageIfAvailable({ push(UnsafeRawBufferPointer($0)) }) {
            return frames
        }
        return Array(bytes).withUnsafeBytes { push($0) }
    }

    /// Feeds bytes; returns the frames they complete. Lines that lie whole in `bytes` are copied
    /// out of it once; only the start of a line that goes on in the next push is kept.
    public mutating func push(_ bytes: UnsafeRawBufferPointer) -> [Frame] {
        var frames: [Frame] = []
        var rest = bytes
        if !pending.isEmpty {
            // Finish the line begun earlier: take bytes up to its newline, or enough to know it is
            // over the limit, and frame it where it is held.
            let room = min(rest.count, scanner.maxLineBytes + 2 - pending.count)
            let take = Scanner.firstNewline(in: rest, from: 0, to: room).map { $0 + 1 } ?? room
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<take]))
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            var scanner = self.scanner
            let (step, frame) = pending.withUnsafeBytes { line in
                let step = scanner.next(line)
                return (step, Self.frame(step, in: line))
            }
            self.scanner = scanner
            if case .needMore = step { return frames }
            if let frame { frames.append(frame) }
            pending.removeAll(keepingCapacity: true)
        }
        while true {
            let step = scanner.next(rest)
            if case .needMore = step {
                pending.append(contentsOf: rest)
                return frames
            }
            if let frame = Self.frame(step, in: rest) { frames.append(frame) }
            rest = UnsafeRawBufferPointer(rebasing: rest[step.consumed...])
        }
    }

    /// End of input: a last line without a newline is still a line.
    public mutating func finish() -> [Frame] {
        var scanner = self.scanner
        let frame = pending.withUnsafeBytes { bytes in scanner.finish(bytes).flatMap { Self.frame($0, in: bytes) } }
        self.scanner = scanner
        pending.removeAll()
        return frame.map { [$0] } ?? []
    }

    /// The frame a step gives, its line copied out of `bytes`.
    private static func frame(_ step: Scanner.Step, in bytes: UnsafeRawBufferPointer) -> Frame? {
        switch step {
        case .line(let length, _): .line(Array(UnsafeRawBufferPointer(rebasing: bytes[..<length])))
        case .tooLong: .tooLong
        case .skip, .needMore: nil
        }
    }
}

extension LineFramer {
    /// The framing rules, on bytes the caller holds. The caller passes the bytes it has; the
    /// scanner says what the first of them are: a whole line, an over-long line to report, bytes of
    /// one to drop, or the start of a line to keep (and pass again, with what comes after, next
    /// time). It remembers how far it has searched, so held bytes are never searched twice, and
    /// it never looks more than `maxLineBytes + 2` bytes ahead for a newline.
    ///
    /// - A line ends at `\n`; a `\r` before it is not part of the line.
    /// - A line longer than `maxLineBytes` (its ending not counted) is reported once, as soon as
    ///   that is known, and its bytes up to its newline are dropped unread.
    /// - At the end of input, bytes after the last newline are a line too.
    public struct Scanner: Sendable {
        public let maxLineBytes: Int
        /// How many bytes at the start of the caller's bytes are the current line's, searched already.
        public private(set) var held = 0
        /// Whether the bytes up to the next newline are an over-long line's, already reported.
        public private(set) var skipping = false

        public enum Step: Sendable, Hashable {
            /// A whole line: its first `length` bytes are the line; `consumed` (its ending
            /// included) are done with.
            case line(length: Int, consumed: Int)
            /// A line over the limit, to report; `consumed` bytes are done with.
            case tooLong(consumed: Int)
            /// Bytes of an over-long line already reported, to drop.
            case skip(consumed: Int)
            /// No whole line: keep every byte, and pass them first next time.
            case needMore

            /// How many bytes, from the start, the caller is done with.
            public var consumed: Int {
                switch self {
                case .line(_, let consumed), .tooLong(let consumed), .skip(let consumed): consumed
                case .needMore: 0
                }
            }
        }

        public init(maxLineBytes: Int) {
            precondition(maxLineBytes > 0, "the line limit must be positive")
            self.maxLineBytes = maxLineBytes
        }

        /// What the first of `bytes` are. `bytes` starts with the bytes kept after the last
        /// `.needMore` (``held`` of them), then come new ones.
        public mutating func next(_ bytes: UnsafeRawBufferPointer) -> Step {
            precondition(held <= bytes.count, "the bytes kept after .needMore must be passed again")
            if skipping {
                guard !bytes.isEmpty else { return .needMore }
                guard let newline = Self.firstNewline(in: bytes, from: 0, to: bytes.count) else {
                    return .skip(consumed: bytes.count)
                }
                skipping = false
                return .skip(consumed: newline + 1)
            }
            // A line of maxLineBytes can have a `\r` before its `\n`: past maxLineBytes + 1 bytes
            // with no newline the line is over the limit, whatever comes next.
            let window = min(bytes.count, maxLineBytes + 2)
            if let newline = Self.firstNewline(in: bytes, from: held, to: window) {
                held = 0
                let length = newline > 0 && bytes[newline - 1] == 0x0D ? newline - 1 : newline
                return length > maxLineBytes ? .tooLong(consumed: newline + 1) : .line(length: length, consumed: newline + 1)
            }
            if window > maxLineBytes + 1 {
                held = 0
                skipping = true
                return .tooLong(consumed: window)
            }
            held = bytes.count
            return .needMore
        }

        /// End of input: what `bytes` (those kept after the last `.needMore`) are, if anything;
        /// the scanner starts afresh.
        public mutating func finish(_ bytes: UnsafeRawBufferPointer) -> Step? {
            defer {
                held = 0
                skipping = false
            }
            guard !skipping, !bytes.isEmpty else { return nil }
            let length = bytes[bytes.count - 1] == 0x0D ? bytes.count - 1 : bytes.count
            return length > maxLineBytes ? .tooLong(consumed: bytes.count) : .line(length: length, consumed: bytes.count)
        }

        /// The offset of the first `\n` in `bytes[start..<end]`, found by `memchr`.
        @inline(__always)
        static func firstNewline(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
            guard start < end, let base = bytes.baseAddress, let found = memchr(base + start, 0x0A, end - start) else {
                return nil
            }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }
}
