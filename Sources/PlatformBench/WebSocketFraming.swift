#if canImport(Glibc)
    import Glibc
#endif

/// The bench's side of `GET /rpc` upgraded to a WebSocket (RFC 6455): the opening handshake on a
/// blocking socket, a request as one masked text frame, a reply as one unmasked frame read from
/// the bytes in place. Written here rather than taken from a client library for the reason the
/// HTTP framing is: the driver's CPU comes out of the 2-core machine the server is measured on.
enum WebSocketFraming {
    /// Upgrades a connected socket; throws unless the server answers 101.
    static func handshake(on descriptor: Int32, port: Int, bearer: String? = nil) throws {
        // Any 16 bytes in base64 serve as the key: the bench does not check the accept hash.
        let authorization = bearer.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        let request =
            "GET /rpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(authorization)Upgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: cGxhdGZvcm1kLWJlbmNoIQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        // A server that never answers fails the bench instead of holding its thread (after as
        // long as its start may take on a loaded machine: two minutes).
        var limit = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        try LoadDriver.send(Array(request.utf8), on: descriptor)
        // Byte by byte, so no frame after the head is read into a buffer thrown away here.
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) {
            guard recv(descriptor, &byte, 1, 0) == 1, head.count < 16_384 else {
                throw BenchFailure("the WebSocket upgrade got no answer (errno \(errno))")
            }
            head.append(byte)
        }
        guard head.starts(with: Array("HTTP/1.1 101".utf8)) else {
            throw BenchFailure("the WebSocket upgrade was refused: \(String(decoding: head.prefix(80), as: UTF8.self))")
        }
    }

    /// One final frame carrying `payload` (text unless `opcode` says otherwise), masked as a
    /// client's must be (RFC 6455 §5.3).
    static func frame(_ payload: ArraySlice<UInt8>, opcode: UInt8 = 0x1) -> [UInt8] {
        let mask: [UInt8] = [0x5A, 0x3C, 0x96, 0xE1]
        var frame: [UInt8] = [0x80 | opcode]
        frame.reserveCapacity(payload.count + 14)
        switch payload.count {
        case ..<126:
            frame.append(0x80 | UInt8(payload.count))
        case ..<65_536:
            frame.append(0x80 | 126)
            frame.append(UInt8(payload.count >> 8))
            frame.append(UInt8(payload.count & 0xFF))
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        frame.append(contentsOf: mask)
        for (offset, byte) in payload.enumerated() { frame.append(byte ^ mask[offset & 3]) }
        return frame
    }

    /// The first whole data frame in `buffer` from `start` (control frames before it, a ping
    /// say, are stepped over): its payload's range and where it ends. nil until one is whole,
    /// and for a frame this bench does not read (a fragment, reserved bits, an absurd length:
    /// the server writes each reply as one final frame), which the run then counts as lost.
    static func message(in buffer: [UInt8], from start: Int) -> (body: Range<Int>, end: Int)? {
        var index = start
        while let frame = Frame(in: buffer, at: index) {
            if frame.opcode < 0x8 {
                guard frame.isFinal, !frame.hasReservedBits else { return nil }
                return (frame.payload, frame.end)
            }
            index = frame.end
        }
        return nil
    }

    /// Takes the control frames off the front of `buffer` up to its first data frame, and
    /// every one after whole data frames: the payloads of the pings among them, each to be
    /// answered with a pong (the server closes a connection whose pings go unanswered).
    static func takePings(from buffer: inout [UInt8]) -> [ArraySlice<UInt8>] {
        var pings: [ArraySlice<UInt8>] = []
        var kept: [UInt8] = []
        var index = 0
        var changed = false
        while let frame = Frame(in: buffer, at: index) {
            if frame.opcode >= 0x8 {
                if frame.opcode == 0x9 { pings.append(buffer[frame.payload]) }
                changed = true
            } else {
                kept += buffer[index..<frame.end]
            }
            index = frame.end
        }
        guard changed else { return [] }
        buffer = kept + buffer[index...]
        return pings
    }

    /// One frame's header, read where it lies; nil while it is not whole.
    struct Frame {
        let opcode: UInt8
        let isFinal: Bool
        let hasReservedBits: Bool
        let payload: Range<Int>
        var end: Int { payload.upperBound }

        init?(in buffer: [UInt8], at index: Int) {
            guard index + 2 <= buffer.count else { return nil }
            opcode = buffer[index] & 0x0F
            isFinal = buffer[index] & 0x80 != 0
            hasReservedBits = buffer[index] & 0x70 != 0
            var length = Int(buffer[index + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard index + 4 <= buffer.count else { return nil }
                length = Int(buffer[index + 2]) << 8 | Int(buffer[index + 3])
                header = 4
            } else if length == 127 {
                guard index + 10 <= buffer.count else { return nil }
                // Past 2^40 bytes no reply is real (and a top bit set would make it negative).
                guard buffer[index + 2] == 0, buffer[index + 3] == 0, buffer[index + 4] == 0 else { return nil }
                length = (5..<10).reduce(0) { $0 << 8 | Int(buffer[index + $1]) }
                header = 10
            }
            if buffer[index + 1] & 0x80 != 0 { header += 4 }
            guard index + header + length <= buffer.count else { return nil }
            payload = (index + header)..<(index + header + length)
        }
    }
}
