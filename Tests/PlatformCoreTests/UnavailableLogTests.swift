import Foundation
import PlatformTesting
import Testing

@testable import PlatformCore
@testable import PlatformServer
@testable import PlatformStorage

/// While the store is away every request is answered -32008 at once: the log gets one line per
/// interval, which says how many more there were, not one line per request.
@Suite struct UnavailableLogTests {
    @Test func aBurstOfUnavailableRepliesLogsOneLine() async throws {
        let recorder = LogRecorder()
        let server = RPCServer(
            methods: ["flow.get": { _ in throw RPCError(FlowError.unavailable("PostgreSQL at db:5432/app cannot be reached")) }],
            logger: recorder.logger("rpc"))
        for id in 1...200 {
            let reply = try #require(await server.replyBytes(to: Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"flow.get"}"#.utf8)))
            #expect(try JSONValue.parse(reply)["error"]?["code"] == -32008)
        }
        let lines = recorder.lines.filter { $0.message.contains("cannot be reached") }
        #expect(lines.count == 1, "\(lines.map(\.message))")
        #expect(lines.first?.level == .warning)
    }

    @Test func theNextLineSaysHowManyWereHeldBack() {
        let throttle = LogThrottle(interval: .seconds(5))
        let start = ContinuousClock.now
        #expect(throttle.admit(at: start) == 0)
        for second in 1...4 { #expect(throttle.admit(at: start + .seconds(second)) == nil) }
        #expect(throttle.admit(at: start + .seconds(5)) == 4)
        #expect(throttle.admit(at: start + .seconds(6)) == nil)
        #expect(throttle.admit(at: start + .seconds(11)) == 1)
    }
}
