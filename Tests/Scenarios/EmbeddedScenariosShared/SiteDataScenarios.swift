// Forgetting one identity provider's site data (issue 28: signing out of a provider that has no
// end-session endpoint): two sites sign in in the same store, one of them is forgotten
// (WebAuthSession.clearSiteData), and a third session reads back what each site still has.
import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    static let siteData: Scenario = { arguments in try await siteDataScenario(mode: arguments[0]) }
}

@MainActor
func siteDataScenario(mode: String) async throws -> ScenarioReport {
    let surface = Surface(mode)
    let callback = try callbackListener()
    // Two identity providers: 127.0.0.1 and localhost are two sites to WebKit.
    let forgotten = try TestServer()
    let kept = try TestServer()
    let keptURL = { (path: String) in kept.url(path).replacingOccurrences(of: "127.0.0.1", with: "localhost") }
    let redirect = callback.url("/callback")
    let finish = "\(redirect)?code=ok&state=xyz"
    // Each site stores a cookie, local storage and IndexedDB, then goes on to `next`.
    let store = { (name: String) in
        """
        document.cookie = '\(name)=1; path=/; max-age=3600'; localStorage.setItem('\(name)', '1');
        const open = indexedDB.open('\(name)', 1); open.onupgradeneeded = () => open.result.createObjectStore('s');
        open.onsuccess = () => { location.href = new URLSearchParams(location.search).get('next'); };
        """
    }
    // Each site says what it still has, then goes on to `next`.
    let check = """
        const dbs = indexedDB.databases ? (await indexedDB.databases()).map(d => d.name).join(',') : '?';
        await fetch('/report?' + new URLSearchParams({ cookie: document.cookie, storage: String(localStorage.length), dbs }));
        location.href = new URLSearchParams(location.search).get('next');
        """
    for server in [forgotten, kept] {
        server.route("/store") { request in .html(Pages.scripted("Store", store(server === forgotten ? "idp_a" : "idp_b"))) }
        server.route("/check") { _ in .html(Pages.scripted("Check", "(async () => { \(check) })()")) }
        server.route("/report") { _ in .html("ok") }
    }
    let next = { (url: String) in url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
    var facts = ScenarioReport()
    let parameters = surface.parameters(timeout: .seconds(60))
    let first = SessionRun(
        redirectURI: redirect, parameters: parameters,
        authorizationURL: forgotten.url("/store") + "?next=" + next(keptURL("/store") + "?next=" + next(finish)))
    try facts.merge(first.facts(await first.outcome(), prefix: "store."))
    await surface.waitForRelease()

    switch try await WebAuthSession.clearSiteData(forHosts: ["127.0.0.1"], parameters: parameters) {
    case .cleared(let provider, let sites):
        facts[.provider] = provider.rawValue
        facts[.clearedSites] = sites
    case .notPossible(_, let reason):
        return ScenarioReport(error: "not possible: \(reason)")
    }

    let second = SessionRun(
        redirectURI: redirect, parameters: parameters,
        authorizationURL: forgotten.url("/check") + "?next=" + next(keptURL("/check") + "?next=" + next(finish)))
    try facts.merge(second.facts(await second.outcome(), prefix: "check."))
    facts[.forgottenSiteReport] = forgotten.requests(to: "/report").last?.query ?? "none"
    facts[.keptSiteReport] = kept.requests(to: "/report").last?.query ?? "none"
    facts[.callbackHits] = callback.requests(to: "/callback").count
    return facts
}
