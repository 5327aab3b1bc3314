import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `platformd bench`: the load generator is a binary of its own, `platformd-bench`, built beside
/// this one (the server binary names no plugin and carries no load generator); this command
/// replaces itself with it, arguments and all, so `platformd bench …` keeps working as documented.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure requests/s, latency, server CPU per request and memory (runs platformd-bench, built beside this binary).",
        discussion: "Every argument goes to platformd-bench; `platformd bench --help` shows its options.")

    @Argument(parsing: .captureForPassthrough, help: "platformd-bench's arguments.") var arguments: [String] = []

    func run() throws {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let bench = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("platformd-bench").path
        guard FileManager.default.isExecutableFile(atPath: bench) else {
            throw CommandRefusal.exit(
                "bench runs platformd-bench, which is not beside this binary (\(bench)); build it with `swift build --product platformd-bench`")
        }
        let argv = ([bench] + arguments).map { strdup($0) } + [nil]
        execv(bench, argv)
        throw CommandFailure("could not run \(bench): errno \(errno)")
    }
}
