import Foundation
import ScenarioSupport
import Testing

/// The GObject casts an app calls (`wvh_window`, `wvh_box`...) are all in the toolkit modules'
/// articles: an app written from the docs finds every one (issue 27 found three missing).
@Suite("Every GObject cast and type check of the C modules is named in the toolkit articles")
struct CastDocumentationTests {
    static let headers = [
        "Sources/CWebKitGTKShared/gtk_webkit_common.h", "Sources/CWebKitGTK3/shim.h", "Sources/CWebKitGTK4/shim.h",
        "Sources/CGLib/shim.h",
    ]

    /// `wvh_name` of every `static inline T *wvh_name(gpointer p)` (a cast) and `wvh_is_name` (a type check).
    static func casts(in header: String) -> [String] {
        header.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("static inline"), line.contains("(gpointer p)") else { return nil }
            guard let name = line.split(separator: "(").first?.split(separator: " ").last else { return nil }
            let bare = name.drop { $0 == "*" }
            return bare.hasPrefix("wvh_") ? String(bare) : nil
        }
    }

    @Test(arguments: ["Sources/WebviewHostGTK3/Docs.docc/WebviewHostGTK3.md", "Sources/WebviewHostGTK4/Docs.docc/WebviewHostGTK4.md"])
    func everyCastIsNamed(_ article: String) throws {
        let text = try String(contentsOf: Checkout.root.appendingPathComponent(article), encoding: .utf8)
        var all: [String] = []
        for header in Self.headers {
            all += Self.casts(in: try String(contentsOf: Checkout.root.appendingPathComponent(header), encoding: .utf8))
        }
        #expect(all.count >= 25, "the headers' casts were not found: \(all)")
        let missing = all.filter { !text.contains("`\($0)`") && !text.contains("`\($0),") && !text.contains(" \($0),") && !text.contains(" \($0)`") }
        #expect(missing.isEmpty, "\(article) does not name \(missing)")
    }
}
