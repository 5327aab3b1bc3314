import Crypto
import Foundation
import PlatformCore
import PlatformStorage

/// The `Platformd-Signature` header: `t=UNIX_SECONDS,v1=HEX`, where HEX is the HMAC-SHA256, under
/// the webhook's secret, of the bytes `UNIX_SECONDS` + `.` + the body. Signing the time with the
/// body lets a receiver refuse an old request replayed later.
public enum WebhookSignature {
    public static let header = "Platformd-Signature"

    /// The header's value for `body` sent at `time` (whole seconds).
    public static func value(body: [UInt8], secret: [UInt8], time: Date) -> String {
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        return "t=\(seconds),v1=\(hex(body: body, secret: secret, seconds: seconds))"
    }

    static func hex(body: [UInt8], secret: [UInt8], seconds: Int64) -> String {
        var signed = Array("\(seconds).".utf8)
        signed += body
        let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret))
        return Hex.string(code)
    }

    /// Whether `value` is a valid signature of `body` made within `tolerance` of `now`: what a
    /// receiver checks (this is the Swift version of Docs/webhooks-receiver.py's check).
    public static func isValid(_ value: String, body: [UInt8], secret: [UInt8], now: Date, tolerance: TimeInterval = 300) -> Bool {
        var seconds: Int64?
        var signatures: [String] = []
        for part in value.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { seconds = Int64(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let seconds, abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { return false }
        let expected = Array(hex(body: body, secret: secret, seconds: seconds).utf8)
        // Compared in constant time, as a receiver must.
        return signatures.contains { candidate in
            let given = Array(candidate.utf8)
            guard given.count == expected.count else { return false }
            return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
