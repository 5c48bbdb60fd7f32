import CGLib

import GLibSupport
import Testing

@Suite("GError to Swift")
struct GLibErrorTests {
    @Test("A GError from a real GLib call becomes a thrown GLibError with domain, code and message")
    func realError() {
        var contents: UnsafeMutablePointer<gchar>?
        do {
            _ = try withGError { error in g_file_get_contents("/nonexistent/webviewhost", &contents, nil, error) }
            Issue.record("reading a missing file succeeded")
        } catch {
            #expect(error.domain == "g-file-error-quark")
            #expect(error.code == Int32(G_FILE_ERROR_NOENT.rawValue))
            #expect(error.message.contains("/nonexistent/webviewhost"))
        }
        #expect(contents == nil)
    }

    @Test("No error, no throw; the result is passed through")
    func success() throws {
        let value = try withGError { _ in 7 }
        #expect(value == 7)
    }

    @Test("isIOError recognises G_IO_ERROR codes")
    func ioError() {
        let cancelled = GLibError(domain: "g-io-error-quark", code: Int32(G_IO_ERROR_CANCELLED.rawValue), message: "Operation was cancelled")
        #expect(cancelled.isIOError(G_IO_ERROR_CANCELLED))
        #expect(!cancelled.isIOError(G_IO_ERROR_NOT_FOUND))
        #expect(cancelled.description == "Operation was cancelled [g-io-error-quark \(G_IO_ERROR_CANCELLED.rawValue)]")
    }
}
