import Foundation
import PlatformCore
import PlatformProtocol
import PlatformStorage
import Synchronization

/// Runs async work with a deadline without waiting for work that ignores cancellation.
enum BoundedWork {
    enum Outcome: Sendable {
        case success(JSONValue)
        case failure(String)
    }

    static func run(_ perform: @escaping @Sendable () async throws -> JSONValue, timeout: Duration) async -> Outcome {
        let finished = Mutex<CheckedContinuation<Outcome, Never>?>(nil)
        return await withCheckedContinuation { continuation in
            finished.withLock { $0 = continuation }
            let resume: @Sendable (Outcome) -> Void = { outcome in
                finished.withLock { pending in
                    pending?.resume(returning: outcome)
                    pending = nil
                }
            }
            let timer = Task {
                try await Task.sleep(for: timeout)
                resume(.failure("timed out after \(timeout)"))
            }
            let work = Task {
                do {
                    resume(.success(try await perform()))
                } catch {
                    resume(.failure("failed: \(type(of: error)): \(error)"))
                }
                timer.cancel()
            }
            // On timeout the work is asked to stop; the reply does not wait for it to listen.
            Task {
                _ = await timer.result
                work.cancel()
            }
        }
    }
}
