/// SHA-256 as specified in FIPS 180-4.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = Hasher256()
        let handledContiguously: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            hasher.update(buffer)
        }
        if handledContiguously == nil {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(4096)
            for byte in bytes {
                chunk.append(byte)
                if chunk.count == 4096 {
                    chunk.withUnsafeBufferPointer { hasher.update($0) }
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            chunk.withUnsafeBufferPointer { hasher.update($0) }
        }
        return hasher.finalize()
    }

    /// The digest of `bytes` as 64 lowercase hexadecimal characters.
    public static func hexDigest(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest(bytes) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The digest of the UTF-8 encoding of `text`, in lowercase hexadecimal.
    public static func hexDigest(_ text: String) -> String {
        hexDigest(text.utf8)
    }
}

/// Incremental SHA-256 state: buffers a partial block between updates.
private struct Hasher256 {
    private var state: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]
    private var pending: [UInt8] = []
    private var schedule = [UInt32](repeating: 0, count: 64)
    private var messageLength: UInt64 = 0

    mutating func update(_ input: UnsafeBufferPointer<UInt8>) {
        messageLength &+= UInt64(input.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, input.count)
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<take]))
            offset = take
            guard pending.count == 64 else { return }
            let block = pending
            block.withUnsafeBufferPointer { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        while input.count - offset >= 64 {
            compress(UnsafeBufferPointer(rebasing: input[offset..<offset + 64]))
            offset += 64
        }
        pending.append(contentsOf: UnsafeBufferPointer(rebasing: input[offset...]))
    }

    mutating func finalize() -> [UInt8] {
        let bitLength = messageLength &* 8
        // Padding: a 1 bit, zeros up to 56 mod 64, then the big-endian bit length.
        var padding: [UInt8] = [0x80]
        let zeroCount = (119 - pending.count) % 64
        padding.append(contentsOf: repeatElement(0, count: zeroCount))
        for shift in stride(from: 56, through: 0, by: -8) {
            padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        padding.withUnsafeBufferPointer { update($0) }

        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>) {
        for t in 0..<16 {
            let base = t * 4
            schedule[t] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16
                | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
        }
        for t in 16..<64 {
            let w15 = schedule[t - 15]
            let w2 = schedule[t - 2]
            let sigma0 = w15.rotatedRight(7) ^ w15.rotatedRight(18) ^ (w15 >> 3)
            let sigma1 = w2.rotatedRight(17) ^ w2.rotatedRight(19) ^ (w2 >> 10)
            schedule[t] = schedule[t - 16] &+ sigma0 &+ schedule[t - 7] &+ sigma1
        }

        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for t in 0..<64 {
            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ sum1 &+ choice &+ roundConstants[t] &+ schedule[t]
            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = sum0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ temp1
            d = c
            c = b
            b = a
            a = temp1 &+ temp2
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        self >> count | self << (32 - count)
    }
}

private let roundConstants: [UInt32] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]

extension SHA256 {
    /// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
    public static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = digest(block.map { $0 ^ 0x36 } + message)
        return digest(block.map { $0 ^ 0x5C } + inner)
    }

    /// HMAC-SHA-256 in lowercase hexadecimal.
    public static func hmacHex(key: [UInt8], message: [UInt8]) -> String {
        hmac(key: key, message: message).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}
