import Foundation

/// What connections that stay open and send nothing cost the server in resident memory: `count`
/// connections opened beside one already answered, each asked one `platform.info` (so each is
/// fully set up: an HTTP keep-alive connection after its first request, a WebSocket after its
/// upgrade, a socket connection with its task running), then left idle while the server's
/// resident set is read again.
struct IdleConnections {
    let count: Int
    let endpoint: BenchEndpoint
    let server: ChildServer
    /// How long each connection's one reply may take.
    let timeout: Duration

    /// The growth of the server's resident memory, in KiB, with `count` idle connections open.
    func residentGrowthKiB() throws -> Int {
        let first = try BlockingExchange(endpoint: endpoint, timeout: timeout)
        _ = try first.call("platform.info", [:])
        // The allocator settles after the first connection's buffers are made and released.
        Thread.sleep(forTimeInterval: 0.5)
        let before = server.residentKiB()
        var open: [BlockingExchange] = []
        open.reserveCapacity(count)
        for _ in 0..<count {
            let exchange = try BlockingExchange(endpoint: endpoint, timeout: timeout)
            _ = try exchange.call("platform.info", [:])
            exchange.release()
            open.append(exchange)
        }
        Thread.sleep(forTimeInterval: 1)
        let after = server.residentKiB()
        withExtendedLifetime(open) {}
        withExtendedLifetime(first) {}
        return after - before
    }
}
