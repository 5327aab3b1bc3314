import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import PlatformCore
import PlatformServer
import PlatformStorage
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Webhook POSTs over AsyncHTTPClient: HTTP/1.1 and HTTP/2, TLS for https URLs (the system's
/// trust roots), no redirects followed (a 3xx is a failed attempt, as any answer but 2xx), and
/// the whole exchange, the response body included, bounded by the attempt's timeout.
package final class HTTPWebhookTransport: WebhookTransport {
    let client: HTTPClient
    /// Read from a response body and thrown away; a receiver has nothing to tell us beyond its status.
    static let maxResponseBytes = 64 * 1024

    package init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(10))
        // A refused or failed connection fails the attempt at once: the worker retries on its own
        // schedule (first retry within 2 s), rather than the client re-dialling until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    package func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "User-Agent", value: "platformd/\(Platform.version)")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        do {
            let response = try await client.execute(request, deadline: deadline)
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if read > Self.maxResponseBytes { break }
            }
            return .status(Int(response.status.code))
        } catch {
            return .failure(Self.describe(error))
        }
    }

    /// A short reason for the delivery's `last_error`.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "no answer within the timeout"
            case .remoteConnectionClosed: return "the receiver closed the connection without answering"
            default: return "\(error)"
            }
        }
        if let error = error as? IOError { return "connection failed: \(String(cString: strerror(error.errnoCode)))" }
        return "\(error)"
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}

/// The delivery worker as a service of `serve`'s group: it runs beside the transport, and on a
/// graceful shutdown stops claiming, lets deliveries in flight finish briefly, gives the others'
/// claims back, and shuts its HTTP client down, all before the store is closed.
package struct DeliveryService: Service {
    package init(worker: DeliveryWorker, transport: HTTPWebhookTransport) {
        self.worker = worker
        self.transport = transport
    }

    let worker: DeliveryWorker
    let transport: HTTPWebhookTransport

    package func run() async throws {
        await withGracefulShutdownHandler {
            await worker.run()
        } onGracefulShutdown: {
            worker.stop()
        }
        await transport.shutdown()
    }
}
