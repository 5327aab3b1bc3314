import PlatformCore
import PlatformServer
import PlatformStorage
import Testing

/// A submit's digest recognises a retry: equal for equal submits, different otherwise.
@Suite struct SubmitDigest {
    let submit = FlowEngine.Submit(stepId: "basics", revision: 1, values: ["name": "Alex", "age": 30])

    func isLowercaseHex(_ text: some StringProtocol) -> Bool {
        text.count == 64 && text.allSatisfy { "0123456789abcdef".contains($0) }
    }

    @Test func hexIsTwoLowercaseDigitsAByteInOrder() {
        #expect(Hex.string([0x00, 0x09, 0x0A, 0x0F, 0x10, 0xA5, 0xFF]) == "00090a0f10a5ff")
        #expect(Hex.string([UInt8]()) == "")
        #expect(Hex.string((0...255).map(UInt8.init)).count == 512)
        // A digest, as a bearer's login writes it (FIPS 180-2's "abc").
        #expect(Credentials.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func equalSubmitsHaveEqualDigests() {
        // Other key order and 30.0 for 30: the same JSON value.
        let same = FlowEngine.Submit(stepId: "basics", revision: 1, values: ["age": 30.0, "name": "Alex"])
        #expect(submit.digest == same.digest)
        #expect(submit.digest == submit.digest)
        #expect(isLowercaseHex(submit.digest))
    }

    @Test func anyDifferenceChangesTheDigest() {
        let others = [
            FlowEngine.Submit(stepId: "basics", revision: 1, values: ["name": "Alex", "age": 31]),
            FlowEngine.Submit(stepId: "basics", revision: 2, values: ["name": "Alex", "age": 30]),
            FlowEngine.Submit(stepId: "other", revision: 1, values: ["name": "Alex", "age": 30]),
            FlowEngine.Submit(stepId: "basics", revision: 1, action: "skip", values: ["name": "Alex", "age": 30]),
            FlowEngine.Submit(stepId: "basics", revision: 1, values: ["name": "Alex"]),
        ]
        let digests = Set(others.map(\.digest) + [submit.digest])
        #expect(digests.count == others.count + 1)
    }

    @Test func keyedDigestDependsOnTheKeyAndTheValues() {
        let key = [UInt8](repeating: 7, count: 32)
        let keyed = submit.keyedDigest(key: key)
        #expect(keyed.hasPrefix("hmac:"))
        #expect(isLowercaseHex(keyed.dropFirst("hmac:".count)))
        #expect(keyed == submit.keyedDigest(key: key))
        #expect(keyed != submit.keyedDigest(key: [UInt8](repeating: 8, count: 32)))
        let other = FlowEngine.Submit(stepId: "basics", revision: 1, values: ["name": "Sam", "age": 30])
        #expect(keyed != other.keyedDigest(key: key))
        #expect(keyed.dropFirst("hmac:".count) != submit.digest)
    }
}
