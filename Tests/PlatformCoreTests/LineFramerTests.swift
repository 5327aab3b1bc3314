import PlatformCore
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
}
