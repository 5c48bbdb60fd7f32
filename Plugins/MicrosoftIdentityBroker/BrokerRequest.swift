import Foundation
import SignIn

/// The JSON each call sends, as current real clients send it (checked field by field against
/// them; the sources are named per field). Every call is D-Bus `(sss) -> (s)`: the protocol
/// version `"0.0"`, a correlation ID (a UUID), this JSON.
///
/// Sources: siemens/sso-mib `src/mib-client-app.c` (commits 3bcb76b "set authorization type based
/// on interface", b1610ed "the account is only needed as part of the authorization params",
/// 75b2504), siemens/linux-entra-sso `linux-entra-sso.py` (a2d67f1, d847b61), and Microsoft
/// Edge's own `acquireTokenSilently` captured with dbus-monitor (himmelblau-idm/himmelblau issue
/// 657). `Tests/Fixtures/BrokerDouble/captures.json` holds the capture; a test compares this
/// file's silent request with it key by key.
enum BrokerRequest {
    /// `authParameters.authorizationType`, MSALRuntime's authorization types (sso-mib 3bcb76b,
    /// names from msal-go). Brokers after 2.0.1 refuse a token call whose type does not match the
    /// method; 2.0.1 took 8 everywhere and takes these too (both clients send them to every
    /// version since January 2026).
    enum AuthorizationType: Int {
        /// `acquireTokenSilently` (sso-mib, linux-entra-sso a2d67f1, Edge's capture).
        case cachedRefreshToken = 1
        /// `acquireTokenInteractively` (sso-mib; linux-entra-sso makes no interactive call).
        case interactive = 6
        /// `acquirePrtSsoCookie` only (sso-mib, linux-entra-sso).
        case prtSSOCookie = 8
    }

    /// `acquireTokenSilently`: `{"authParameters": {...}}`, the broker's own account object
    /// inside `authParameters` only (no top-level `account` since sso-mib b1610ed and
    /// linux-entra-sso d847b61; Edge never sends one).
    static func silent(client: TokenBrokerClient, redirectURI: URL, scopes: [String], account: BrokerJSON.Object) -> BrokerJSON.Object {
        var parameters = common(client: client, redirectURI: redirectURI, scopes: scopes, type: .cachedRefreshToken)
        parameters["account"] = account
        // sso-mib and linux-entra-sso send the account's username beside it; Edge too.
        if let username = account["username"] as? String { parameters["username"] = username }
        return ["authParameters": parameters]
    }

    /// `acquireTokenInteractively`: sso-mib's request (`acquire_token_interactive_prepare_request`):
    /// the silent call's fields with type 6; the account and username only when the person is not
    /// asked to pick an account; `prompt` when set (sso-mib marks this key as not yet confirmed).
    /// `parentWindow` goes under `parentWindowKey` when the app named one (see
    /// ``MicrosoftIdentityBroker/parentWindowKey``).
    static func interactive(
        client: TokenBrokerClient, redirectURI: URL, scopes: [String], account: BrokerJSON.Object?, loginHint: String?,
        prompt: Prompt?, parentWindow: (key: String, value: UInt64)?
    ) -> BrokerJSON.Object {
        var parameters = common(client: client, redirectURI: redirectURI, scopes: scopes, type: .interactive)
        let choosing = prompt == .selectAccount || prompt == .login  // sso-mib drops the account for select_account
        if let account, !choosing {
            parameters["account"] = account
            if let username = account["username"] as? String { parameters["username"] = username }
        } else if let loginHint {
            parameters["username"] = loginHint
        }
        if let prompt { parameters["prompt"] = prompt.rawValue }
        if let parentWindow { parameters[parentWindow.key] = parentWindow.value }
        return ["authParameters": parameters]
    }

    /// `acquirePrtSsoCookie`: linux-entra-sso's request (`acquire_prt_sso_cookie`): the broker's
    /// account object at the top and in `authParameters` (type 8, with `ssoUrl` there too, and
    /// the account's `username`), `mamEnrollment` false, and `ssoUrl`, the sign-in page the
    /// cookie is for. linux-entra-sso sends Edge's client ID and Graph's scope; this client
    /// sends the app's own, as sso-mib does for its token calls.
    static func ssoCookie(
        client: TokenBrokerClient, redirectURI: URL, scopes: [String], account: BrokerJSON.Object, ssoURL: URL
    ) -> BrokerJSON.Object {
        var parameters = common(client: client, redirectURI: redirectURI, scopes: scopes, type: .prtSSOCookie)
        parameters["account"] = account
        if let username = account["username"] as? String { parameters["username"] = username }
        parameters["ssoUrl"] = ssoURL.absoluteString
        return ["account": account, "authParameters": parameters, "mamEnrollment": false, "ssoUrl": ssoURL.absoluteString]
    }

    /// `getAccounts`: `{"clientId", "redirectUri"}` (sso-mib, linux-entra-sso, Edge's capture).
    static func accounts(client: TokenBrokerClient, redirectURI: URL) -> BrokerJSON.Object {
        ["clientId": client.clientID, "redirectUri": redirectURI.absoluteString]
    }

    /// `removeAccount`: `{"account", "clientId"}` (sso-mib).
    static func remove(client: TokenBrokerClient, account: BrokerJSON.Object) -> BrokerJSON.Object {
        ["account": account, "clientId": client.clientID]
    }

    /// `getLinuxBrokerVersion`: `{"msalCppVersion"}` (sso-mib, linux-entra-sso).
    static func version() -> BrokerJSON.Object {
        ["msalCppVersion": "1.28.0"]
    }

    /// `cancelInteractiveFlow`: no public client calls it and its body is not known; the
    /// interactive call's correlation ID (the D-Bus argument) names the flow, the body is `{}`.
    static func cancel() -> BrokerJSON.Object { [:] }

    /// The fields every token call's `authParameters` has, in every client.
    private static func common(client: TokenBrokerClient, redirectURI: URL, scopes: [String], type: AuthorizationType) -> BrokerJSON.Object {
        [
            // linux-entra-sso and Edge send it, empty when the app adds nothing.
            "additionalQueryParametersForAuthorization": BrokerJSON.Object(),
            "authority": client.authority.absoluteString,
            "authorizationType": type.rawValue,
            "clientId": client.clientID,
            "redirectUri": redirectURI.absoluteString,
            // What the app asked for, as a JSON array of strings; nothing added (Edge, sso-mib).
            "requestedScopes": scopes,
            // -1: no window (Edge, linux-entra-sso); see parentWindowKey.
            "uxContextHandle": -1,
        ]
    }
}
