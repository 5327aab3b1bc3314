import Dispatch
import NIOCore
import NIOPosix
import Testing

@testable import PlatformTransports

/// A connection's task runs on its channel's loop, also after a wait that resumed it from
/// another thread (the store's writer resumes a commit's waiters from its own queue).
@Suite struct EventLoopTaskExecutorTests {
    @Test func aTaskPreferringTheExecutorRunsOnTheLoopAcrossAwaits() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let executor = EventLoopTaskExecutor.on(loop)
        let seen = await Task(executorPreference: executor) { () async -> [Bool] in
            var seen = [loop.inEventLoop]
            await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { resumed.resume() }
            }
            seen.append(loop.inEventLoop)
            async let child = { loop.inEventLoop }()
            seen.append(await child)
            return seen
        }.value
        #expect(seen == [true, true, true])
    }

    @Test func aTaskWithoutItRunsOffTheLoop() async {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let onLoop = await Task { loop.inEventLoop }.value
        #expect(!onLoop)
    }

    @Test func oneExecutorALoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        #expect(EventLoopTaskExecutor.on(loops[0]) === EventLoopTaskExecutor.on(loops[0]))
        #expect(EventLoopTaskExecutor.on(loops[0]) !== EventLoopTaskExecutor.on(loops[1]))
        try await group.shutdownGracefully()
    }
}
