import HTTPTypes
import Testing

@testable import PlatformTransports

/// A `POST /rpc` reads its head's fields in one pass: the same value the HTTP types' subscript
/// gives, several fields of a name joined as it joins them, names matched in any case.
@Suite struct HeaderValueTests {
    static let heads: [HTTPFields] = [
        [:],
        [.contentType: "application/json"],
        [.contentType: "application/json", .authorization: "Bearer pdk_abc", .contentLength: "42"],
        // Two Authorization fields: read joined (a login then refuses them), never the first alone.
        HTTPFields([HTTPField(name: .authorization, value: "Bearer a"), HTTPField(name: .authorization, value: "Bearer b")]),
        HTTPFields([
            HTTPField(name: HTTPField.Name("CONTENT-length")!, value: "5"), HTTPField(name: .accept, value: "x"),
            HTTPField(name: .contentLength, value: "5"), HTTPField(name: .connection, value: ""),
        ]),
        HTTPFields([HTTPField(name: .expect, value: "100-continue"), HTTPField(name: HTTPField.Name("Upgrade")!, value: "websocket")]),
    ]
    static let names: [HTTPField.Name] = [
        .contentType, .authorization, .contentLength, .connection, .expect, .upgrade, .transferEncoding, .acceptLanguage,
    ]

    @Test func everyReadIsTheSubscriptsValue() {
        for head in Self.heads {
            for name in Self.names {
                #expect(head.value(of: name) == head[name], "\(name) of \(head)")
            }
        }
        #expect(Self.heads[3].value(of: .authorization) == "Bearer a, Bearer b")
        #expect(HTTPTransport.bearer(Self.heads[3]) == "a, Bearer b")
    }

    /// `Connection: close` is a token of the list, in any case and with any spaces, in one field
    /// or another; a token that only contains the letters is not it.
    @Test(arguments: [
        ("close", true), ("Close", true), ("keep-alive, close", true), (" CLOSE ,x", true), ("keep-alive", false),
        ("closed-caption", false), ("keep-alive, x-close-later", false), ("", false),
    ])
    func closeIsAToken(value: String, closes: Bool) {
        #expect(HTTPFields([HTTPField(name: .connection, value: value)]).asksToClose == closes)
        #expect(HTTPFields([HTTPField(name: .connection, value: "keep-alive"), HTTPField(name: .connection, value: value)]).asksToClose == closes)
    }

    @Test func noConnectionFieldKeepsTheConnection() {
        #expect(!HTTPFields([HTTPField(name: .contentType, value: "close")]).asksToClose)
    }
}
