import Foundation
import PlatformCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Outbound HTTP through Foundation's `URLSession`, for a host that hands the plugin no client
/// of its own (a plugin's tests through `FlowDriver`, a host other than `platformd`).
/// `platformd` hands its own (`TenantSettings.outbound`): on Linux (libcurl underneath) a
/// `URLSession` request now and then never started under load, and the analysis then waited out
/// its whole timeout before falling back.
struct FoundationOutboundHTTP: OutboundHTTP {
    /// One session for every request: a session per request (each with its own curl multi-handle
    /// and queue) stalled more often. Shared by every tenant and user, so it keeps nothing between
    /// requests: no cookies, no cache.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    func post(
        _ url: URL, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration, maxResponseBytes: Int
    ) async throws(OutboundHTTPError) -> OutboundHTTPResponse {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        for header in headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
        request.httpBody = Data(body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.session.data(for: request)
        } catch let error as URLError where error.code == .timedOut || error.code == .cancelled {
            throw .timedOut
        } catch let error as URLError {
            throw .failed("request failed with URLError \(error.code.rawValue)")
        } catch is CancellationError {
            throw .timedOut
        } catch {
            throw .failed("request failed with \(type(of: error))")
        }
        guard data.count <= maxResponseBytes else { throw .responseTooLarge(limit: maxResponseBytes) }
        return OutboundHTTPResponse(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: Array(data))
    }
}
