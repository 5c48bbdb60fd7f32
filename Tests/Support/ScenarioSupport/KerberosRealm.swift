public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Kerberos realm on 127.0.0.1 and an intranet sign-in page that asks `WWW-Authenticate:
/// Negotiate` (`Tests/Fixtures/Kerberos/negotiate_idp.py`: a real MIT KDC, python3-gssapi), for
/// the embedded view's Negotiate tests and the GObject layer's `wvh_allow_negotiate`. The realm and
/// its sign-in page run until ``stop()``; tickets go to a cache of the test's own.
public struct KerberosRealm {
    public let directory: URL
    public let child: CleanSpawn
    public let base: String
    /// The same page over https (a self-signed certificate for 127.0.0.1: ``certificate``).
    public let httpsBase: String
    public let certificate: String

    /// `services`: the hosts with a service principal `HTTP/<host>` (both the page's names by default).
    public static func start(services: String = "127.0.0.1,localhost") async throws -> KerberosRealm {
        let directory = Self.temporaryFolder()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Debian's python3, where python3-gssapi is (a python3 of pyenv's would not have it).
        let script = Checkout.fixture("Kerberos").appendingPathComponent("negotiate_idp.py").path
        let server = try await FixtureServer.start(
            ["/usr/bin/python3", script, directory.path], in: directory,
            environment: ProcessInfo.processInfo.environment.merging(["NEGOTIATE_IDP_SERVICES": services]) { $1 },
            keys: ["base", "https_base", "cert"])
        let facts = server.facts
        return KerberosRealm(
            directory: directory, child: server.child, base: facts["base"]!, httpsBase: facts["https_base"]!, certificate: facts["cert"]!)
    }

    public static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("wvh-kerberos-\(UUID().uuidString)")
    }

    /// The environment of a process that uses this realm, with the ticket cache `cache` (a file here).
    public func environment(cache: String) -> [String: String] {
        ["KRB5_CONFIG": directory.appendingPathComponent("krb5.conf").path,
         "KRB5CCNAME": "FILE:" + directory.appendingPathComponent(cache).path]
    }

    /// `kinit alice` into `cache` (alice's keys from the realm's keytab), for `lifetime` (`2s`: one that expires soon).
    public func kinit(cache: String, lifetime: String? = nil) async throws {
        let keytab = directory.appendingPathComponent("alice.keytab").path
        let output = try await ScriptRunner.run(
            "kinit", (lifetime.map { ["-l", $0] } ?? []) + ["-k", "-t", keytab, "alice"],
            environment: environment(cache: cache), timeout: 60)
        guard output.status == 0 else { throw KerberosFailure("kinit failed: \(output.standardError)") }
    }

    /// Whether the KDC still gives a service ticket for the page with the cache's ticket (`kvno`):
    /// `klist -s` says a ticket has expired at its end time, the KDC only after its clock skew.
    public func kdcAcceptsTicket(cache: String) async throws -> Bool {
        try await ScriptRunner.run("kvno", ["HTTP/127.0.0.1"], environment: environment(cache: cache), timeout: 60).status == 0
    }

    /// The page's requests, one JSON object each: path, scheme (of `Authorization`), outcome, person, target.
    public var requests: [[String: String]] {
        ((try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
    }

    public func stop() {
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stop").path, contents: nil)
        _ = child.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The realm or its page did not start, or `kinit` failed.
public struct KerberosFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
