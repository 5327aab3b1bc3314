/// Splits a byte stream into lines (`\n`, with `\r\n` accepted), with a maximum line length:
/// an over-long line is reported once and skipped up to its newline, and framing goes on.
public struct LineFramer: Sendable {
    public enum Frame: Sendable, Hashable {
        case line([UInt8])
        /// A line longer than the limit was dropped.
        case tooLong
    }

    public let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var skipping = false

    public init(maxLineBytes: Int) {
        precondition(maxLineBytes > 0, "the line limit must be positive")
        self.maxLineBytes = maxLineBytes
    }

    /// Feeds bytes; returns the frames they complete.
    public mutating func push<Bytes: Collection>(_ bytes: Bytes) -> [Frame] where Bytes.Element == UInt8 {
        var frames: [Frame] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            guard let newline = rest.firstIndex(of: 0x0A) else {
                append(rest, into: &frames)
                break
            }
            append(rest[..<newline], into: &frames)
            if skipping {
                skipping = false
            } else {
                frames.append(frame(Self.withoutCarriageReturn(buffer)))
            }
            buffer.removeAll(keepingCapacity: true)
            rest = rest[rest.index(after: newline)...]
        }
        return frames
    }

    /// End of input: a last line without a newline is still a line.
    public mutating func finish() -> [Frame] {
        defer {
            buffer.removeAll()
            skipping = false
        }
        guard !skipping, !buffer.isEmpty else { return [] }
        return [frame(Self.withoutCarriageReturn(buffer))]
    }

    private func frame(_ line: [UInt8]) -> Frame {
        line.count > maxLineBytes ? .tooLong : .line(line)
    }

    private mutating func append<Part: Collection>(_ part: Part, into frames: inout [Frame]) where Part.Element == UInt8 {
        guard !skipping else { return }
        // One byte of slack for the `\r` of a `\r\n` ending, which is not part of the line.
        if buffer.count + part.count > maxLineBytes + 1 {
            buffer.removeAll(keepingCapacity: true)
            skipping = true
            frames.append(.tooLong)
        } else {
            buffer.append(contentsOf: part)
        }
    }

    private static func withoutCarriageReturn(_ line: [UInt8]) -> [UInt8] {
        line.last == 0x0D ? Array(line.dropLast()) : line
    }
}
