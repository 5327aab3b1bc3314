/// What the walk needs of a reply line: whether it is an error, and the session's id, revision,
/// status and step id. Read by skimming the line (`JSONSkimmer`) instead of building the whole
/// view, which for StatLocker's state pickers is tens of kilobytes.
struct ReplySummary: Sendable {
    var isError = false
    var sessionId: String?
    var revision: Int64?
    var status: String?
    var stepId: String?

    init(line: ArraySlice<UInt8>) throws {
        var skimmer = JSONSkimmer(line)
        try skimmer.members { key, skimmer in
            switch key {
            case "error":
                isError = true
                try skimmer.skipValue()
            case "result":
                try skimmer.members { key, skimmer in
                    switch key {
                    case "sessionId": sessionId = try skimmer.string()
                    case "revision": revision = try skimmer.integer()
                    case "status": status = try skimmer.string()
                    case "step" where !skimmer.atNull:
                        try skimmer.members { key, skimmer in
                            if key == "id" { stepId = try skimmer.string() } else { try skimmer.skipValue() }
                        }
                    default: try skimmer.skipValue()
                    }
                }
            default: try skimmer.skipValue()
            }
        }
    }
}

/// Walks JSON text without building it: objects' members are visited by key, everything else
/// is skipped. Enough for the bench's replies, which the server's own writer produced.
struct JSONSkimmer {
    struct Malformed: Error {}

    let bytes: ArraySlice<UInt8>
    var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var atNull: Bool {
        var probe = self
        probe.skipSpaces()
        return probe.index < bytes.endIndex && bytes[probe.index] == UInt8(ascii: "n")
    }

    mutating func skipSpaces() {
        while index < bytes.endIndex {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Past a string, without making it (most of a reply is skipped: the driver's own CPU is
    /// taken from the servers it measures).
    mutating func skipString() throws {
        try expect(UInt8(ascii: "\""))
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") { index += 1 }
        }
        throw Malformed()
    }

    mutating func expect(_ byte: UInt8) throws {
        skipSpaces()
        guard index < bytes.endIndex, bytes[index] == byte else { throw Malformed() }
        index += 1
    }

    /// Calls `body` with each member's key; `body` must read or skip the value.
    mutating func members(_ body: (String, inout JSONSkimmer) throws -> Void) throws {
        skipSpaces()
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "{") else { throw Malformed() }
        try elements(closing: UInt8(ascii: "}")) { skimmer in
            let key = try skimmer.string()
            try skimmer.expect(UInt8(ascii: ":"))
            try body(key, &skimmer)
        }
    }

    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        var text: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.endIndex else { throw Malformed() }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.endIndex,
                        let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                    else { throw Malformed() }
                    index += 4
                    text.append(contentsOf: Array(String(UnicodeScalar(code).map(Character.init) ?? "\u{FFFD}").utf8))
                default: text.append(escaped)
                }
            default: text.append(byte)
            }
        }
        throw Malformed()
    }

    mutating func integer() throws -> Int64 {
        skipSpaces()
        let start = index
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || (0x30...0x39).contains(bytes[index]) { index += 1 }
        guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw Malformed() }
        return value
    }

    /// Through an object's members or an array's elements, `each` taking one (the opening byte is
    /// at `index`).
    private mutating func elements(closing: UInt8, _ each: (inout JSONSkimmer) throws -> Void) throws {
        index += 1
        skipSpaces()
        if index < bytes.endIndex, bytes[index] == closing {
            index += 1
            return
        }
        while true {
            try each(&self)
            skipSpaces()
            guard index < bytes.endIndex else { throw Malformed() }
            let separator = bytes[index]
            index += 1
            if separator == closing { return }
            guard separator == UInt8(ascii: ",") else { throw Malformed() }
        }
    }

    mutating func skipValue() throws {
        skipSpaces()
        guard index < bytes.endIndex else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"):
            try elements(closing: UInt8(ascii: "}")) { skimmer in
                try skimmer.skipString()
                try skimmer.expect(UInt8(ascii: ":"))
                try skimmer.skipValue()
            }
        case UInt8(ascii: "["):
            try elements(closing: UInt8(ascii: "]")) { skimmer in try skimmer.skipValue() }
        default:
            // A number or a literal: up to the next delimiter.
            scan: while index < bytes.endIndex {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: break scan
                default: index += 1
                }
            }
        }
    }
}
