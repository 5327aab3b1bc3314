import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import Testing

@Suite struct RPCServerTests {
    let server = RPCServer(
        methods: [
            "echo": { params in .object(params.object) },
            "fail": { _ in throw RPCError(FlowError.notFound("thing")) },
            "crash": { _ in
                struct Boom: Error {}
                throw Boom()
            },
        ],
        logger: Logger(label: "test"))

    func reply(_ line: String) async -> JSONValue? {
        await server.reply(to: Array(line.utf8))
    }

    @Test func aRequestGetsItsResultWithItsId() async {
        let answer = await reply(#"{"jsonrpc":"2.0","id":"a-1","method":"echo","params":{"x":[1,2]}}"#)
        #expect(answer == ["jsonrpc": "2.0", "id": "a-1", "result": ["x": [1, 2]]])
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":1,"method":"echo",}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"echo"} // comment"#,
        "{'jsonrpc':'2.0'}",
        #"{"jsonrpc":"2.0","id":NaN,"method":"echo"}"#,
        "[1,]",
        "\u{FEFF}{}",
    ])
    func malformedJSONIsAParseErrorWithNullId(line: String) async {
        let answer = await reply(line)
        #expect(answer?["error"]?["code"] == -32700)
        #expect(answer?["id"] == .null)
    }

    @Test func invalidUTF8IsAParseError() async {
        let bytes: [UInt8] = Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(await server.reply(to: bytes)?["error"]?["code"] == -32700)
    }

    @Test(arguments: [
        "{}", "[1]", "42", "\"text\"", "null",
        #"{"jsonrpc":"1.0","id":1,"method":"echo"}"#,
        #"{"jsonrpc":"2.0","id":1}"#,
        #"{"jsonrpc":"2.0","id":1,"method":7}"#,
        #"{"jsonrpc":"2.0","id":{},"method":"echo"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"echo","params":"x"}"#,
    ])
    func invalidRequestsGetMinus32600WithNullId(line: String) async {
        let answer = await reply(line)
        let first = answer?.arrayValue?.first ?? answer
        #expect(first?["error"]?["code"] == -32600)
        #expect(first?["id"] == .null)
    }

    @Test func anEmptyBatchIsOneInvalidRequest() async {
        let answer = await reply("[]")
        #expect(answer?["error"]?["code"] == -32600)
        #expect(answer?.arrayValue == nil)
    }

    @Test func batchesAnswerInOrderAndSkipNotifications() async {
        let answer = await reply(
            #"[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","id":2,"method":"nope"},5]"#)
        let items = answer?.arrayValue ?? []
        #expect(items.count == 3)
        #expect(items[0]["result"] == ["n": 1])
        #expect(items[1]["id"] == 2)
        #expect(items[1]["error"]?["code"] == -32601)
        #expect(items[2]["error"]?["code"] == -32600)
        #expect(await reply(#"[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"fail"}]"#) == nil)
    }

    @Test func notificationsAndBlankLinesGetNoReply() async {
        #expect(await reply(#"{"jsonrpc":"2.0","method":"echo"}"#) == nil)
        #expect(await reply(#"{"jsonrpc":"2.0","method":"nope"}"#) == nil)
        #expect(await reply("") == nil)
        #expect(await reply(" \t\r") == nil)
    }

    @Test func errorsKeepTheirCodeAndHideInternalDetail() async {
        let notFound = await reply(#"{"jsonrpc":"2.0","id":3,"method":"fail"}"#)
        #expect(notFound?["error"]?["code"] == -32002)
        #expect(notFound?["id"] == 3)
        let crash = await reply(#"{"jsonrpc":"2.0","id":4,"method":"crash"}"#)
        #expect(crash?["error"] == ["code": -32603, "message": "Internal error"])
        let positional = await reply(#"{"jsonrpc":"2.0","id":5,"method":"echo","params":[1]}"#)
        #expect(positional?["error"]?["code"] == -32602)
        let emptyList = await reply(#"{"jsonrpc":"2.0","id":6,"method":"echo","params":[]}"#)
        #expect(emptyList?["result"] == [:])
        #expect(await reply(#"{"jsonrpc":"2.0","id":null,"method":"echo"}"#)?["id"] == .null)
    }

    @Test func repliesNeverContainARawNewline() async throws {
        let answer = await reply(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"a\nb\u2028c"}}"#)
        let line = answer?.serialized() ?? ""
        #expect(!line.contains("\n"))
        #expect(!line.contains("\u{2028}"))
        #expect(try JSONValue.parse(line)["result"]?["text"] == "a\nb\u{2028}c")
    }
}
