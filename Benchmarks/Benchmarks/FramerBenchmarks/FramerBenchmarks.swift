import Benchmark
import PlatformCore

// The line framer as the stdio transport drives it: a stream pushed in 64 KiB chunks, with the
// server's default line limit (1 MiB). Each iteration frames the whole stream; "MB/s" is the
// stream's size (10^6 bytes) over the time the pushes took.

let chunkSize = 64 * 1024
let maxLineBytes = 1 << 20

/// JSON-RPC requests of about 200 bytes each, some ending in `\r\n`, up to `size` bytes.
func requestLines(size: Int) -> [UInt8] {
    let methods = ["statlocker.goals.list", "teepals.courses.search", "airfit.workouts.log", "aflfantasy.team.get", "auth.login"]
    var generator = SplitMix64(seed: 42)
    var stream: [UInt8] = []
    stream.reserveCapacity(size + 512)
    var id = 0
    while stream.count < size {
        id += 1
        let method = methods[Int(generator.next() % UInt64(methods.count))]
        let note = String(repeating: "x", count: Int(generator.next() % 80))
        let line =
            #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":{"tenant":"acme","user":"u-\#(generator.next() % 100_000)","since":"2025-01-01T00:00:00Z","limit":50,"note":"\#(note)"}}"#
        stream += line.utf8
        if generator.next() % 20 == 0 { stream.append(0x0D) }
        stream.append(0x0A)
    }
    return stream
}

/// `requestLines` with one over-long line of `longLine` bytes in the middle.
func requestLinesWithOverlongLine(size: Int, longLine: Int) -> [UInt8] {
    let half = requestLines(size: (size - longLine) / 2)
    return half + [UInt8](repeating: UInt8(ascii: "a"), count: longLine) + [0x0A] + half
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let megabytesPerSecond = BenchmarkMetric.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false)

/// Frames `stream` in 64 KiB chunks; returns the lines and over-long lines seen.
@inline(never)
func frame(_ stream: [UInt8]) -> (lines: Int, tooLong: Int) {
    var framer = LineFramer(maxLineBytes: maxLineBytes)
    var lines = 0
    var tooLong = 0
    var start = 0
    while start < stream.count {
        let end = min(start + chunkSize, stream.count)
        for frame in framer.push(stream[start..<end]) {
            switch frame {
            case .line(let bytes):
                lines += 1
                blackHole(bytes)
            case .tooLong: tooLong += 1
            }
        }
        start = end
    }
    for frame in framer.finish() {
        if case .line = frame { lines += 1 } else { tooLong += 1 }
    }
    return (lines, tooLong)
}

func measure(_ benchmark: Benchmark, _ stream: [UInt8], expectTooLong: Int) {
    let newlines = stream.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        let start = ContinuousClock.now
        let counts = frame(stream)
        let elapsed = ContinuousClock.now - start
        precondition(counts == (newlines - expectTooLong, expectTooLong), "framed \(counts) from \(stream.count) bytes")
        blackHole(counts)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        benchmark.measurement(megabytesPerSecond, Int(Double(stream.count) / seconds / 1e6))
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, megabytesPerSecond],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 50
    )

    Benchmark("LineFramer 64 MiB of ~200-byte lines, 64 KiB pushes") { benchmark, stream in
        measure(benchmark, stream, expectTooLong: 0)
    } setup: {
        requestLines(size: 64 << 20)
    }

    Benchmark("LineFramer 64 MiB with one 8 MiB over-long line, 64 KiB pushes") { benchmark, stream in
        measure(benchmark, stream, expectTooLong: 1)
    } setup: {
        requestLinesWithOverlongLine(size: 64 << 20, longLine: 8 << 20)
    }

    Benchmark("LineFramer one 8 MiB over-long line alone, 64 KiB pushes") { benchmark, stream in
        measure(benchmark, stream, expectTooLong: 1)
    } setup: {
        [UInt8](repeating: UInt8(ascii: "a"), count: 8 << 20) + [0x0A]
    }
}
