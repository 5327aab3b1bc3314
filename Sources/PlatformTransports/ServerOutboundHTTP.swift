import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import PlatformCore
import PlatformServer

/// The HTTP client the server hands its plugins (`TenantSettings.outbound`): AsyncHTTPClient on
/// NIO's shared event loops, HTTP/1.1 and HTTP/2, TLS with the system's trust roots, no redirect
/// followed. Plugins had Foundation's `URLSession`, which on Linux now and then never started a
/// request under load (the analysis then waited out its whole timeout).
package struct ServerOutboundHTTP: OutboundHTTP {
    /// One client for the process, never shut down: it lives as long as the plugins that hold it.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        // A refused connection is an answer at once (the analysis falls back), not a redial until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()

    package init() {}

    package func post(
        _ url: URL, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration, maxResponseBytes: Int
    ) async throws(OutboundHTTPError) -> OutboundHTTPResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "User-Agent", value: "platformd/\(Platform.version)")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        do {
            let response = try await Self.client.execute(request, deadline: deadline)
            let answer = try await response.body.collect(upTo: maxResponseBytes)
            return OutboundHTTPResponse(status: Int(response.status.code), body: Array(answer.readableBytesView))
        } catch is NIOTooManyBytesError {
            throw .responseTooLarge(limit: maxResponseBytes)
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout, .cancelled].contains(error) {
            throw .timedOut
        } catch is CancellationError {
            throw .timedOut
        } catch {
            throw .failed(HTTPWebhookTransport.describe(error))
        }
    }
}
