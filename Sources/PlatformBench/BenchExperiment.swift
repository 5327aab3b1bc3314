import Foundation
import PlatformProtocol

/// `--experiment`: a two-variant experiment on the walked flow, declared in a tenants file the
/// bench writes, so every walk's start enrols (the assignment's cost per `flow.start`), and
/// `analytics.experiment` timed over what is stored (with `--preload-exposed`, a million people).
enum BenchExperiment {
    static let id = "bench"
    static let variants = ["a", "b"]

    static func tenantsFile(tenant: String, plugin: String, flow: String) -> String {
        let variants = Self.variants.map { #"{ "id": "\#($0)", "flow": "\#(flow)", "weight": 1 }"# }.joined(separator: ", ")
        return #"""
            { "tenants": [ { "id": "\#(tenant)", "plugin": "\#(plugin)", "experiments": [
              { "id": "\#(id)", "flow": "\#(flow)", "seed": "\#(id)", "control": "a", "variants": [ \#(variants) ] } ] } ] }
            """#
    }

    /// The median of five `analytics.experiment` calls, and the exposed people they counted.
    static func timeResults(tenant: String, exchange: BlockingExchange) throws -> (milliseconds: Double, exposed: Int) {
        var times: [Double] = []
        var exposed = 0
        for _ in 0..<5 {
            let started = ContinuousClock.now
            let reply = try exchange.call("analytics.experiment", ["tenant": .string(tenant), "experiment": .string(id)])
            times.append((ContinuousClock.now - started).seconds * 1000)
            guard let variants = reply["result"]?["variants"]?.arrayValue else {
                throw BenchFailure("analytics.experiment failed: \(reply.serialized())")
            }
            exposed = variants.compactMap { $0["exposed"]?.intValue }.reduce(0, +)
        }
        return (times.sorted()[times.count / 2], exposed)
    }
}

extension PlatformBench {
    /// The plugin of `tenant`, from `platformd info` (a line per tenant: id, tab, plugin and version).
    static func plugin(of tenant: String, executable: String) throws -> String {
        let output = try run(executable, ["info"])
        for line in output.split(separator: "\n") {
            let columns = line.split(separator: "\t")
            if columns.count >= 2, columns[0] == tenant, let name = columns[1].split(separator: " ").first { return String(name) }
        }
        throw BenchFailure("no tenant \(tenant) in platformd info")
    }

    /// The first step of a flow, from `platformd describe` (what an exposed person arrives on).
    /// The flow's first step, version and fingerprint, as `platformd describe` says: preloaded
    /// sessions are stamped with the served version, so the server's start moves none of them.
    static func served(of tenant: String, flow: String, executable: String, tenants: String) throws -> (firstStep: String, version: String, fingerprint: String)
    {
        let output = try JSONValue.parse(try run(executable, ["describe", tenant, "--flow", flow, "--tenants", tenants]))
        guard let step = output["steps"]?.arrayValue?.first?["id"]?.stringValue,
            let version = output["version"]?.stringValue, let fingerprint = output["fingerprint"]?.stringValue
        else {
            throw BenchFailure("platformd describe \(tenant) --flow \(flow) named no step, version or fingerprint")
        }
        return (step, version, fingerprint)
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchFailure("platformd \(arguments.joined(separator: " ")) exited \(process.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }
}
