import Testing
@testable import PlatformCore

struct SHA256Tests {
    @Test func sha256OfEmptyInput() {
        #expect(SHA256.hexDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.digest([UInt8]()).count == 32)
    }

    @Test func sha256OfABC() {
        #expect(SHA256.hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func sha256OfTwoBlockMessage() {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(SHA256.hexDigest(message) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha256OfOneMillionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == expected)
        // A non-contiguous sequence takes the chunked path.
        #expect(SHA256.hexDigest(repeatElement(UInt8(ascii: "a"), count: 1_000_000)) == expected)
    }

    @Test func sha256DigestMatchesHexDigest() {
        let bytes = Array("abc".utf8)
        let hex = SHA256.digest(bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == SHA256.hexDigest(bytes))
    }
}

@Suite struct HMACTests {
    /// RFC 4231 test cases 1 and 6 (a key longer than the block).
    @Test func rfc4231Vectors() {
        let key1 = [UInt8](repeating: 0x0B, count: 20)
        #expect(SHA256.hmacHex(key: key1, message: Array("Hi There".utf8))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let key6 = [UInt8](repeating: 0xAA, count: 131)
        #expect(SHA256.hmacHex(key: key6, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
