import Foundation
import ScenarioSupport
import Testing

/// Issue 34: the GObject layer leaks nothing across the boundary. The C app
/// (`Tests/Fixtures/GObject/signin.c`: a sign-in in the library's window, a silent renewal, a
/// sign-out, the accounts, the forbidden arguments) runs under valgrind's memcheck with GLib's and
/// GTK's suppressions, against the Entra-like provider on 127.0.0.1 (fake_entra.py, which
/// answers at once: the run is slow under valgrind). `Tools/gobject/definite-leaks.py` then reads
/// the definite leaks whose innermost frame outside the allocators is the library's own.
/// Part of the Glewlwyd suite, which runs its tests one at a time: memcheck is heavy, and the other
/// GObject apps' runs must not share the machine with it.
extension GlewlwydSignInTests {
    @Test("valgrind memcheck: no definite leak the library allocated, over a sign-in, a renewal and a sign-out from C")
    func noDefiniteLeakFromTheLibrary() async throws {
        let layer = try await GlewlwydSignInTests.preparedGObjectLayer()
        // valgrind 3.19 cannot read the toolchain's DWARF 5: a copy without debug information
        // (the symbols stay, so frames still name the library and its functions).
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("webviewhost-valgrind-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        let prepare = """
            set -e
            cp -a '\(layer.path)' '\(copy.path)'
            strip --strip-debug '\(copy.path)'/lib/libwebviewhost-gtk3.so '\(copy.path)'/lib/webviewhost-swift/*.so
            sed -i "s|^prefix=.*|prefix=\(copy.path)|" '\(copy.path)'/lib/pkgconfig/*.pc
            cc -g -o '\(copy.path)/signin' '\(Checkout.fixture("GObject").appendingPathComponent("signin.c").path)' \
              $(PKG_CONFIG_PATH='\(copy.path)/lib/pkgconfig' pkg-config --cflags --libs webviewhost-gtk3)
            """
        let prepared = try await ScriptRunner.run("/bin/sh", ["-c", prepare], timeout: 300)
        try #require(prepared.status == 0, "\(prepared.standardError)")

        let entra = try await ClientInfoSignInTests.FakeEntra.start()
        defer { entra.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let log = copy.appendingPathComponent("memcheck.log").path
        let run = try await PrivateXServer.with { display in
            try await ScriptRunner.run(
                "valgrind",
                ["--leak-check=full", "--num-callers=40", "--log-file=\(log)",
                 "--suppressions=/usr/share/glib-2.0/valgrind/glib.supp", "--suppressions=/usr/share/gtk-3.0/valgrind/gtk.supp",
                 copy.appendingPathComponent("signin").path, "entra-app", entra.facts["issuer"] ?? "", "alice", "unused",
                 Checkout.fixture("Glewlwyd").appendingPathComponent("autopilot.js").path],
                environment: display.environment(from: desktop.environment), timeout: 900)
        }
        let report = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        #expect(report.contains("\"outcome\": \"success\""), "under valgrind: \(report) \(run.standardError.suffix(2000))")
        #expect(report.contains("\"signedOut\": true"))
        let leaks = try await ScriptRunner.run(
            "python3", [Checkout.root.appendingPathComponent("Tools/gobject/definite-leaks.py").path, log, "libwebviewhost-gtk3.so"],
            timeout: 60)
        #expect(leaks.status == 0, "\(leaks.standardOutput.suffix(6000))")
        #expect(leaks.standardOutput.contains("0 allocated by libwebviewhost-gtk3.so"), "the log was read: \(leaks.standardOutput.prefix(200))")
    }
}
