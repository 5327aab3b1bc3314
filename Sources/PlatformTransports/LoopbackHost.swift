#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a listen or Host address is this machine: the hosted pages' cookies are Secure
/// elsewhere, MCP over HTTP accepts the loopback names as Host, and `serve` refuses a TCP
/// listener without login beyond loopback.
package enum LoopbackHost {
    /// Decided on the parsed address, not its text: `127.0.0.1`, `::1`, `::ffff:127.0.0.1` (with
    /// or without brackets) and `localhost` are loopback; `127.example.com` is not.
    package static func contains(_ host: String) -> Bool {
        var address = host.lowercased()
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        if address == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        // An IPv4-mapped address (::ffff:a.b.c.d) is loopback when its IPv4 part is.
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }
}
