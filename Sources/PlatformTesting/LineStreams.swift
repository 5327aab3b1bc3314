import PlatformCore
import PlatformServer
import PlatformStorage

/// Random byte streams for the line framer's tests, and the framing rules written the plain way,
/// to compare the framer against.
public enum LineStreams {
    /// The frames of a whole stream, by the rules stated plainly: split at every `\n`; a `\r`
    /// ending a line is not part of it; a line longer than `maxLineBytes` is `.tooLong`; bytes
    /// after the last `\n` are a line too.
    public static func referenceFrames(_ stream: [UInt8], maxLineBytes: Int) -> [LineFramer.Frame] {
        var pieces = stream.split(separator: 0x0A, omittingEmptySubsequences: false)
        if pieces.last?.isEmpty == true { pieces.removeLast() }
        return pieces.map { piece in
            let line = piece.last == 0x0D ? piece.dropLast() : piece
            return line.count > maxLineBytes ? .tooLong : .line(Array(line))
        }
    }

    /// A stream of lines whose lengths hover around `maxLineBytes`, over an alphabet heavy in
    /// `\r` and `\n`, so that every boundary case of the rules comes up.
    public static func randomStream(maxLineBytes: Int, lines: Int, using random: inout some RandomNumberGenerator) -> [UInt8] {
        var stream: [UInt8] = []
        for _ in 0..<lines {
            let length: Int =
                switch Int.random(in: 0..<4, using: &random) {
                case 0: Int.random(in: 0...3, using: &random)
                case 1: Int.random(in: max(0, maxLineBytes - 2)...(maxLineBytes + 3), using: &random)
                case 2: Int.random(in: 0...(maxLineBytes * 3), using: &random)
                default: Int.random(in: 0...maxLineBytes, using: &random)
                }
            for _ in 0..<length {
                stream.append([UInt8(ascii: "a"), UInt8(ascii: "{"), 0x0D, 0x00, 0xFF].randomElement(using: &random)!)
            }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: stream += [0x0D, 0x0A]
            case 1: stream += [0x0D, 0x0D, 0x0A]
            default: stream.append(0x0A)
            }
        }
        // Sometimes a last line with no newline, or one that ends in `\r`.
        switch Int.random(in: 0..<3, using: &random) {
        case 0: stream += Array("tail".utf8)
        case 1: stream += Array("tail\r".utf8)
        default: break
        }
        return stream
    }

    /// `stream` cut into pieces of random sizes, empty ones among them; one of several styles:
    /// single bytes, small pieces, or large ones.
    public static func randomChunks(_ stream: [UInt8], using random: inout some RandomNumberGenerator) -> [ArraySlice<UInt8>] {
        let largest = [1, 3, 17, 300, max(1, stream.count)].randomElement(using: &random)!
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + Int.random(in: 0...largest, using: &random))
            chunks.append(stream[start..<end])
            start = end
        }
        return chunks
    }
}

/// A small seeded generator, so a failing random case can be run again.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
