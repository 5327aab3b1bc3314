import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A full disk is a passing condition: -32008 with nothing saved, then service resumes once
/// space is back. Needs a small file system of its own (a tmpfs mount, so root on Linux); the
/// test is reported skipped where one cannot be made (not root).
@Suite("Disk full")
struct DiskFullTests {
    static func mountSmallFileSystem(at path: String) -> Bool {
        #if os(Linux)
            guard getuid() == 0 else { return false }
            return mount("tmpfs", path, "tmpfs", 0, "size=4m") == 0
        #else
            return false
        #endif
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskIsUnavailableAndNothingIsSaved() async throws {
        try await withTemporaryDirectory { directory in
            let mountPoint = directory.appendingPathComponent("small").path
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            try #require(Self.mountSmallFileSystem(at: mountPoint), "mount -t tmpfs as root")
            defer { _ = umount(mountPoint) }
            let db = mountPoint + "/full.sqlite"
            let filler = mountPoint + "/filler"
            try await PlatformdProcess.with(["serve", "--db", db]) { server in
                #expect(try await server.call("flow.start", ["tenant": .string(Hosted.tenant), "userId": "before"])["result"] != nil)
                // Fill the file system to the last block.
                _ = FileManager.default.createFile(atPath: filler, contents: nil)
                let handle = try #require(FileHandle(forWritingAtPath: filler))
                let block = Data(count: 4096)
                while (try? handle.write(contentsOf: block)) != nil {}
                try? handle.close()

                var codes: [Int] = []
                var refusedUser: String?
                for index in 0..<200 {
                    let user = "filler-\(index)-" + String(repeating: "x", count: 200)
                    let reply = try await server.call("flow.start", ["tenant": .string(Hosted.tenant), "userId": .string(user)], id: .int(Int64(index + 10)))
                    if let code = reply["error"]?["code"]?.intValue {
                        codes.append(code)
                        refusedUser = user
                        break
                    }
                }
                #expect(codes == [-32008], "\(codes)")
                #expect(!server.stderrText.contains("Internal error"))
                try FileManager.default.removeItem(atPath: filler)
                if let refusedUser {
                    let missing = try await server.call("flow.get", ["tenant": .string(Hosted.tenant), "userId": .string(refusedUser)], id: 900)
                    #expect(missing["error"]?["code"] == -32002)
                    let retried = try await server.call("flow.start", ["tenant": .string(Hosted.tenant), "userId": .string(refusedUser)], id: 901)
                    #expect(retried["result"]?["userId"] == .string(refusedUser))
                }
                #expect(try await server.call("flow.get", ["tenant": .string(Hosted.tenant), "userId": "before"], id: 902)["result"] != nil)
                // The server closes its database before the file system is unmounted (else the
                // mount stays, busy, after the test).
                try server.closeStdin()
                _ = try await server.waitForExit()
            }
        }
    }
}
