import Testing

@testable import PlatformTransports

/// `Authorization: Bearer` read as bytes, as it was read with Foundation's trimming before.
@Suite struct BearerHeaderTests {
    @Test(arguments: [
        ("Bearer pdk_abc", "pdk_abc"),
        ("bearer pdk_abc", "pdk_abc"),
        ("BEARER pdk_abc", "pdk_abc"),
        ("  Bearer pdk_abc", "pdk_abc"),
        ("Bearer   pdk_abc \t ", "pdk_abc"),
        ("Bearer \tpdk_abc", "pdk_abc"),
        ("Bearer pdk_a b", "pdk_a b"),
        ("Bearer pdt_é", "pdt_é"),
    ])
    func aSecretIsRead(header: String, secret: String) {
        #expect(HTTPTransport.bearer(authorization: header) == secret)
    }

    @Test(arguments: ["", "Bearer", "Bearer ", "Bearer \t ", "Bearerpdk_abc", "Bearer\tpdk_abc", "Basic dXNlcjpwYXNz", "Bearex pdk", "Bèarer pdk", "Beare pdk"])
    func anythingElseIsNoBearer(header: String) {
        #expect(HTTPTransport.bearer(authorization: header) == nil)
    }
}
