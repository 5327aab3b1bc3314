import NIOCore
import NIOEmbedded
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

@testable import PlatformTransports
@testable import platformd

/// The socket transport's line decoder: the same rules as `LineFramer`, on NIO's buffer.
@Suite struct LineFramerDecoderTests {
    /// Feeds `chunks` as separate reads; returns the frames after each read, then those at the
    /// end of input (the peer closing its side, or the connection going away).
    func decode(_ chunks: [ArraySlice<UInt8>], maxLineBytes: Int, endWithInputClosed: Bool = true) throws -> [[LineFramer.Frame]] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: maxLineBytes)))
        func drain() throws -> [LineFramer.Frame] {
            var frames: [LineFramer.Frame] = []
            while let frame = try channel.readInbound(as: LineFramer.Frame.self) { frames.append(frame) }
            return frames
        }
        var reads: [[LineFramer.Frame]] = []
        for chunk in chunks {
            try channel.writeInbound(ByteBuffer(bytes: chunk))
            reads.append(try drain())
        }
        if endWithInputClosed {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            reads.append(try drain())
        }
        _ = try channel.finish()
        reads.append(try drain())
        return reads
    }

    func bytes(_ text: String) -> ArraySlice<UInt8> { Array(text.utf8)[...] }

    func text(_ frames: [LineFramer.Frame]) -> [String] {
        frames.map { frame in
            switch frame {
            case .line(let bytes): String(decoding: bytes, as: UTF8.self)
            case .tooLong: "<too long>"
            }
        }
    }

    @Test func linesComeOutAsEachIsWhole() throws {
        let reads = try decode([bytes("{\"a\":1}\r"), bytes("\n{\"b\""), bytes(":2}\n\n{\"c\":3}\r\n"), bytes("last")], maxLineBytes: 100)
        #expect(reads.map(text) == [[], ["{\"a\":1}"], ["{\"b\":2}", "", "{\"c\":3}"], [], ["last"], []])
    }

    @Test func aLastLineIsALineWhenTheConnectionGoesAway() throws {
        let reads = try decode([bytes("one\ntwo\r")], maxLineBytes: 100, endWithInputClosed: false)
        #expect(reads.map(text) == [["one"], ["two"]])
    }

    @Test func anOverlongLineIsReportedAsSoonAsKnownAndOnce() throws {
        let chunks = [bytes("12345"), bytes("67890"), bytes("abcdef"), bytes("ghi\nok\n"), bytes("123456789\r\n1234567\r\n"), bytes("123456789")]
        let reads = try decode(chunks, maxLineBytes: 8)
        #expect(reads.map(text) == [[], ["<too long>"], [], ["ok"], ["<too long>", "1234567"], [], ["<too long>"], []])
    }

    @Test func randomStreamsInRandomReadsMatchTheReference() throws {
        var random = SplitMix64(seed: 0xDEC0_DE42)
        for round in 0..<150 {
            let maxLineBytes = Int.random(in: 1...24, using: &random)
            let stream = LineStreams.randomStream(maxLineBytes: maxLineBytes, lines: Int.random(in: 0...40, using: &random), using: &random)
            let expected = LineStreams.referenceFrames(stream, maxLineBytes: maxLineBytes)
            for _ in 0..<3 {
                let chunks = LineStreams.randomChunks(stream, using: &random)
                let got = try decode(chunks, maxLineBytes: maxLineBytes, endWithInputClosed: Bool.random(using: &random))
                #expect(Array(got.joined()) == expected, "round \(round), reads \(chunks.map(\.count))")
                if Array(got.joined()) != expected { return }
            }
        }
    }
}

/// What the decoder reports to the partial-line budget, and whom the budget closes.
@Suite struct PartialLineBudgetAccountingTests {
    let budget = PartialLineBudget(limit: 1 << 20, logger: .init(label: "test"))

    /// A connected channel (an embedded channel is active once connected, and closing ends that).
    func connection() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: 1 << 20, budget: budget)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7070)).wait()
        return channel
    }

    @Test func aPartialLineIsHeldUntilItsNewlineAndWholeLinesHoldNothing() throws {
        let channel = try connection()
        try channel.writeInbound(ByteBuffer(bytes: Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#.utf8) + [0x0A]))
        #expect(budget.total == 0)
        try channel.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x20, count: 10_000)))
        #expect(budget.total >= 10_000, "a partial line's buffer is counted by its capacity")
        try channel.writeInbound(ByteBuffer(bytes: [0x0A]))
        #expect(budget.total == 0, "the line is whole: nothing held")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func overTheLimitTheLargestHoldersAreClosedAndForgotten() throws {
        let small = try connection()
        let large = try connection()
        let larger = try connection()
        try small.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x20, count: 1000)))
        try large.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x20, count: 400_000)))
        #expect(small.isActive && large.isActive)
        try larger.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x20, count: 700_000)))
        // Over 1 MiB together: the largest goes first, and that is enough.
        #expect(!larger.isActive)
        #expect(small.isActive && large.isActive)
        #expect(budget.total < 1 << 20)
        // What a closed connection reports afterwards is not counted again.
        budget.hold(5_000_000, on: larger)
        #expect(budget.total < 1 << 20)
        budget.release(larger)
        budget.release(large)
        budget.release(small)
        #expect(budget.total == 0)
    }
}
