#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import ScenarioSupport
import Synchronization
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

extension EmbeddedScenarios {
    // A proxy that asks for a password (the desktop's proxy: the test sets http_proxy), answered
    // by the app through ProxyAuthentication.ask: a session in the library's window, then one in
    // the app's own view. arguments: the password the app answers with.
    static let proxyPassword: Scenario = { arguments in
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize-window") { _ in .redirect(callback.url("/callback") + "?code=window&state=xyz") }
        idp.route("/authorize-view") { _ in .redirect(callback.url("/callback") + "?code=view&state=xyz") }
        let asked = Mutex<[String]>([])
        let password = arguments[0]
        ProxyAuthentication.ask = { challenge in
            asked.withLock { $0.append("\(challenge.proxy) \(challenge.attempt)") }
            return ProxyCredential(user: "alice-proxy", password: password)
        }
        var facts = ScenarioReport()
        facts[.idpPort] = idp.port
        let inWindow = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil), authorizationURL: idp.url("/authorize-window"))
        facts.merge(inWindow.facts(try await inWindow.outcome(), prefix: "window."))
        let window = Toolkit.makeWindow(width: 700, height: 560)
        let view = UnsafeMutableRawPointer(webkit_web_view_new()!)
        Toolkit.setChild(view, of: window)
        Toolkit.show(window)
        let inView = SessionRun(
            redirectURI: callback.url("/callback"), parameters: WebviewParameters(customWebview: WebviewHandle(view)),
            authorizationURL: idp.url("/authorize-view"))
        facts.merge(inView.facts(try await inView.outcome(), prefix: "view."))
        facts[.proxyQuestions] = asked.withLock { $0 }
        return facts
    }
}
