import NIOCore
import Synchronization

/// Runs a task's jobs on one event loop. On SQLite, a Unix or TCP socket connection's task
/// prefers its channel's loop, so a request read there is answered there, and its reply
/// written, without a hand-off to Swift's pool and back (a thread woken each way). The store's
/// statements still run on GRDB's queues, so the loop does the requests' CPU work and the writer
/// the commits: on the 2-core VM the Unix socket answered ~5 % more requests/s at ~5 % less CPU
/// a request (Docs/performance.md). Nothing reached from a request may block (the rule in
/// Docs/architecture.md): here a blocked job would stop the loop's sockets too.
///
/// HTTP keeps Swift's pool. A `POST /rpc`'s loop also runs HTTP's parsing and encoding, and
/// with the requests' work as well that loop became the limit (~6 % fewer requests/s measured).
/// A WebSocket's frames pass through Hummingbird's WebSocket actor either way: on the loop it
/// answered no more requests/s, with a p99 at 32 connections ~2 ms longer.
final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    let loop: any EventLoop

    private init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// One executor a loop, made the first time the loop is asked for (loops live as long as
    /// the process's event-loop group, so the few made are kept).
    static func on(_ loop: any EventLoop) -> EventLoopTaskExecutor {
        made.withLock { made in
            if let executor = made[ObjectIdentifier(loop)] { return executor }
            let executor = EventLoopTaskExecutor(loop)
            made[ObjectIdentifier(loop)] = executor
            return executor
        }
    }

    private static let made = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])
}
