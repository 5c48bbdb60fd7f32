import Foundation
import ScenarioSupport
import WebviewHost

extension EmbeddedScenarios {
    // The app's proxy for the library's window (issue 33): the first session's pages go through
    // the proxy given as the argument (WebviewParameters.networkProxy); the next session, without
    // one, in the same shared web context, goes direct again. arguments: the proxy's URL.
    static let proxy: Scenario = { arguments in
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize-proxied") { _ in .redirect(callback.url("/callback") + "?code=proxied&state=xyz") }
        idp.route("/authorize-direct") { _ in .redirect(callback.url("/callback") + "?code=direct&state=xyz") }
        var facts = ScenarioReport()
        facts[.idpPort] = idp.port
        var parameters = windowParameters(parent: nil)
        do throws(WebAuthError) {
            parameters.networkProxy = try NetworkProxy(arguments[0])
        } catch {
            facts[.outcome] = "\(error.code): \(error.message)"
            return facts
        }
        let proxied = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize-proxied"))
        facts.merge(proxied.facts(try await proxied.outcome(), prefix: "proxied."))
        let direct = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil), authorizationURL: idp.url("/authorize-direct"))
        facts.merge(direct.facts(try await direct.outcome(), prefix: "direct."))
        return facts
    }
}
