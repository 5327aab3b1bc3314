import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

@Suite struct LineFramerTests {
    func lines(_ frames: [LineFramer.Frame]) -> [String] {
        frames.map { frame in
            switch frame {
            case .line(let bytes): String(decoding: bytes, as: UTF8.self)
            case .tooLong: "<too long>"
            }
        }
    }

    @Test func splitsLinesAndAcceptsCRLF() {
        var framer = LineFramer(maxLineBytes: 100)
        #expect(lines(framer.push(Array("one\ntwo\r\n\nthree".utf8))) == ["one", "two", ""])
        #expect(lines(framer.finish()) == ["three"])
        #expect(framer.finish().isEmpty)
    }

    @Test func bytesFedOneAtATimeGiveTheSameLines() {
        let input = Array("{\"a\":1}\r\n{\"b\":2}\nlast".utf8)
        var framer = LineFramer(maxLineBytes: 100)
        var frames: [LineFramer.Frame] = []
        for byte in input { frames += framer.push([byte]) }
        frames += framer.finish()
        #expect(lines(frames) == ["{\"a\":1}", "{\"b\":2}", "last"])
    }

    @Test func anOverlongLineIsReportedOnceAndSkippedToItsNewline() {
        var framer = LineFramer(maxLineBytes: 8)
        var frames: [LineFramer.Frame] = []
        for chunk in ["12345", "67890", "abcdef", "ghi\nok\n", "12345678\n", "123456789\r\n", "1234567\r\n"] {
            frames += framer.push(Array(chunk.utf8))
        }
        #expect(lines(frames) == ["<too long>", "ok", "12345678", "<too long>", "1234567"])
    }

    @Test func anOverlongLastLineAtEOF() {
        var framer = LineFramer(maxLineBytes: 4)
        #expect(lines(framer.push(Array("ok\n123456".utf8))) == ["ok", "<too long>"])
        #expect(framer.finish().isEmpty)
        var exact = LineFramer(maxLineBytes: 4)
        #expect(exact.push(Array("12345".utf8)).isEmpty)
        #expect(lines(exact.finish()) == ["<too long>"])
    }

    /// Frames `chunks` pushed one after another, then the end of input.
    func frames<Chunk: Collection>(_ chunks: [Chunk], maxLineBytes: Int) -> [LineFramer.Frame] where Chunk.Element == UInt8 {
        var framer = LineFramer(maxLineBytes: maxLineBytes)
        var frames: [LineFramer.Frame] = []
        for chunk in chunks { frames += framer.push(chunk) }
        return frames + framer.finish()
    }

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aCRLFSplitAcrossTwoPushes() {
        #expect(lines(frames([bytes("abc\r"), bytes("\ndef\r"), bytes("\n"), bytes("\r"), bytes("\n")], maxLineBytes: 100)) == ["abc", "def", ""])
        // At the limit: the `\r` held over is not counted once its `\n` comes.
        #expect(lines(frames([bytes("1234\r"), bytes("\n5")], maxLineBytes: 4)) == ["1234", "5"])
        #expect(lines(frames([bytes("12345\r"), bytes("\nok\n")], maxLineBytes: 4)) == ["<too long>", "ok"])
        // A `\r` last at end of input is not part of the line either.
        #expect(lines(frames([bytes("ok\n1234"), bytes("\r")], maxLineBytes: 4)) == ["ok", "1234"])
    }

    @Test func aLineNearTheLimitInOneBytePushes() {
        let input = bytes("12345678\r\n123456789\nabcdefghijklmnop\r\nok\n\n1234567\r")
        #expect(lines(frames(input.map { [$0] }, maxLineBytes: 8)) == ["12345678", "<too long>", "<too long>", "ok", "", "1234567"])
    }

    @Test func anOverlongLineSplitAcrossManyPushesIsReportedOnce() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        let chunks = stride(from: 0, to: long.count, by: 7).map { long[$0..<min($0 + 7, long.count)] }
        var framer = LineFramer(maxLineBytes: 16)
        var frames: [LineFramer.Frame] = []
        for (index, chunk) in chunks.enumerated() {
            let new = framer.push(chunk)
            // Reported as soon as more than 16 bytes (17 with a `\r`) have come with no newline.
            #expect(new == (index == 2 ? [.tooLong] : []))
            frames += new
        }
        frames += framer.push(bytes("tail of it\r\nnext\n"))
        frames += framer.finish()
        #expect(lines(frames) == ["<too long>", "next"])
    }

    @Test func aNewlineExactlyAtTheLimitInEverySplit() {
        // Lines of exactly the limit are lines; one byte more (not a `\r` before `\n`) is too long.
        let input = bytes("12345678\n12345678\r\n123456789\n123456789\r\n1234567\r\r\n12345678\r\r\nend")
        let expected = ["12345678", "12345678", "<too long>", "<too long>", "1234567\r", "<too long>", "end"]
        #expect(lines(frames([input], maxLineBytes: 8)) == expected)
        for first in 0...input.count {
            for second in first...input.count {
                let chunks = [input[..<first], input[first..<second], input[second...]]
                #expect(lines(frames(chunks, maxLineBytes: 8)) == expected, "split at \(first) and \(second)")
            }
        }
    }

    @Test func aCollectionWithoutContiguousStorage() {
        let input = bytes("a\r\nb\nc").lazy.map { $0 }
        #expect(lines(frames([input], maxLineBytes: 4)) == ["a", "b", "c"])
    }

    @Test func randomStreamsInRandomChunksMatchTheReference() {
        var random = SplitMix64(seed: 0x5EED_F4A3)
        for round in 0..<400 {
            let maxLineBytes = Int.random(in: 1...24, using: &random)
            let stream = LineStreams.randomStream(maxLineBytes: maxLineBytes, lines: Int.random(in: 0...40, using: &random), using: &random)
            let expected = LineStreams.referenceFrames(stream, maxLineBytes: maxLineBytes)
            #expect(frames([stream], maxLineBytes: maxLineBytes) == expected, "round \(round), whole")
            for _ in 0..<4 {
                let chunks = LineStreams.randomChunks(stream, using: &random)
                let got = frames(chunks, maxLineBytes: maxLineBytes)
                #expect(got == expected, "round \(round), chunks \(chunks.map(\.count))")
                if got != expected { return }
            }
        }
    }

    @Test func theFramerCanBeUsedAgainAfterFinish() {
        var framer = LineFramer(maxLineBytes: 4)
        #expect(lines(framer.push(bytes("123456"))) == ["<too long>"])
        #expect(framer.finish().isEmpty)
        #expect(lines(framer.push(bytes("ab\nc"))) == ["ab"])
        #expect(lines(framer.finish()) == ["c"])
    }
}
