import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `--db postgres://…?sslmode=…`, against a cluster that serves TLS and a role that may only
/// connect over it (`hostssl` trust, `host` reject in pg_hba.conf), so a connection that works was
/// encrypted. `.ci/run` makes the certificates (scripts/ci/postgres-tls-certificates.sh) and sets:
/// `PLATFORMD_TEST_POSTGRES_TLS_URL` (that role, host `localhost`), `PLATFORMD_TEST_POSTGRES_ROOTCERT`
/// (the CA that signed the server's certificate) and `PLATFORMD_TEST_POSTGRES_OTHER_ROOTCERT`
/// (a CA that did not).
@Suite("platformd: PostgreSQL over TLS")
struct PostgresTLSTests {
    struct Setup {
        var url: String
        var rootCertificate: String
        var otherRootCertificate: String

        func url(_ query: String, host: String? = nil) -> String {
            var components = URLComponents(string: url)!
            if let host { components.host = host }
            return components.string! + (query.isEmpty ? "" : "?" + query)
        }
    }

    static var setup: Setup? {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["PLATFORMD_TEST_POSTGRES_TLS_URL"], !url.isEmpty,
            let root = environment["PLATFORMD_TEST_POSTGRES_ROOTCERT"], let other = environment["PLATFORMD_TEST_POSTGRES_OTHER_ROOTCERT"]
        else { return nil }  // the tests say what they need with `.enabled(if:)`, which reports the skip
        return Setup(url: url, rootCertificate: root, otherRootCertificate: other)
    }

    /// A server on `url` answers a request that reads the database (stdio), then stops. (It writes
    /// nothing: other tests compare whole funnels of this shared database.)
    static func serves(_ url: String) async throws {
        try await PlatformdProcess.with(["serve", "--db", url]) { server in
            let events = try await server.call("events.list", ["tenant": .string(Hosted.tenant)])
            #expect(events["result"]?["events"] != nil, "\(url): \(events.serialized())\n\(server.stderrText)")
            try server.closeStdin()
            #expect(try await server.waitForExit().status == 0)
        }
    }

    /// A server on `url` refuses to start: exit 69 and one line on stderr naming the database.
    static func refuses(_ url: String) async throws -> String {
        try await PlatformdProcess.with(["serve", "--db", url]) { server in
            let exit = try await server.waitForExit()
            #expect(exit == .init(status: 69, signaled: false), "\(url): \(server.stderrText)")
            let lines = server.stderrText.split(separator: "\n").filter { $0.contains("PostgreSQL") }
            #expect(lines.count == 1, "\(server.stderrText)")
            return server.stderrText
        }
    }

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["PLATFORMD_TEST_POSTGRES_TLS_URL"]?.isEmpty == false,
            "needs PostgreSQL with TLS (.ci/run sets PLATFORMD_TEST_POSTGRES_TLS_URL)"))
    func everySSLModeThatCanConnectDoesAndTheOthersSayWhy() async throws {
        guard let setup = Self.setup else { return }
        // Encrypted, the certificate checked against the CA and the host's name (and its IP).
        try await Self.serves(setup.url("sslmode=verify-full&sslrootcert=\(setup.rootCertificate)"))
        try await Self.serves(setup.url("sslmode=verify-full&sslrootcert=\(setup.rootCertificate)", host: "127.0.0.1"))
        try await Self.serves(setup.url("sslmode=verify-ca&sslrootcert=\(setup.rootCertificate)"))
        // Encrypted, the certificate not checked (libpq's require without a root certificate).
        try await Self.serves(setup.url("sslmode=require"))
        // prefer, and no sslmode at all (prefer is the default): TLS since the server offers it.
        try await Self.serves(setup.url("sslmode=prefer"))
        try await Self.serves(setup.url(""))

        // Plain: this role may not connect without TLS, and the server's reason is given.
        let plain = try await Self.refuses(setup.url("sslmode=disable"))
        #expect(plain.contains("cannot reach PostgreSQL"))
        // A certificate from another CA: the handshake is refused, and the line names TLS.
        let wrongCA = try await Self.refuses(setup.url("sslmode=verify-full&sslrootcert=\(setup.otherRootCertificate)"))
        #expect(wrongCA.contains("TLS"), "\(wrongCA)")
    }

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["PLATFORMD_TEST_POSTGRES_TLS_URL"]?.isEmpty == false,
            "needs PostgreSQL with TLS (.ci/run sets PLATFORMD_TEST_POSTGRES_TLS_URL)"))
    func aModeThatNeedsARootCertificateWithoutOneIsAUsageError() async throws {
        guard let setup = Self.setup else { return }
        for query in ["sslmode=verify-full", "sslmode=verify-ca", "sslmode=sometimes", "sslmode=require&sslrootcert=/nonexistent/ca.crt"] {
            try await PlatformdProcess.with(["serve", "--db", setup.url(query)]) { server in
                let exit = try await server.waitForExit()
                #expect(exit == .init(status: 64, signaled: false), "\(query): \(server.stderrText)")
                #expect(server.stderrText.contains("invalid PostgreSQL URL"), "\(query): \(server.stderrText)")
            }
        }
    }
}
