import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// Signing out of an identity provider that has no end-session endpoint (issue 28): the embedded
/// view's store forgets that provider's sites only. Two sites store a cookie, local storage and
/// IndexedDB in one sign-in; the first is forgotten; a later sign-in's pages report what each
/// still has. In the library's window (its persistent store) and in a caller's view (its own).
@Suite("The embedded view forgets one identity provider's site data, and only that", .serialized, .desktop)
struct SiteDataTests {
    @Test(arguments: Platform.x11 + [Platform(toolkit: .gtk4, display: .wayland)], ["window", "view"])
    func oneProvidersDataIsForgotten(_ platform: Platform, mode: String) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.siteData, mode, on: platform)
        #expect(report[.error] == nil, "\(report[.error] ?? "")")
        #expect(report[.outcome.prefixed(by: "store.")] == "success")
        #expect(report[.outcome.prefixed(by: "check.")] == "success")
        #expect(report[.provider] == "embedded")
        #expect(report[.clearedSites] == ["127.0.0.1"])
        let forgotten = Self.items(report[.forgottenSiteReport])
        let kept = Self.items(report[.keptSiteReport])
        #expect(forgotten["cookie"] == "", "the forgotten site's cookie: \(forgotten)")
        #expect(forgotten["storage"] == "0", "the forgotten site's local storage: \(forgotten)")
        #expect(forgotten["dbs"]?.contains("idp_a") == false, "the forgotten site's IndexedDB: \(forgotten)")
        #expect(kept["cookie"] == "idp_b=1", "the other site keeps its cookie: \(kept)")
        #expect(kept["storage"] == "1")
        #expect(kept["dbs"]?.contains("idp_b") == true || kept["dbs"] == "?", "\(kept)")
        #expect(report[.callbackHits] == 0)
    }

    static func items(_ query: String?) -> [String: String] {
        let pairs = URLComponents(string: "?" + (query ?? "").replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? []
        return Dictionary(pairs.map { ($0.name, $0.value ?? "") }) { $1 }
    }
}
