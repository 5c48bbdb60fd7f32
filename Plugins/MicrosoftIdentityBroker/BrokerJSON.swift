import Foundation
import SignIn
import WebviewHost

/// The broker's JSON, read defensively: unknown fields are ignored, numbers may come as strings,
/// and the account may sit where either broker generation puts it.
enum BrokerJSON {
    typealias Object = [String: Any]

    static func data(_ object: Object) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    static func string(_ object: Object) -> String {
        String(decoding: data(object), as: UTF8.self)
    }

    static func object(from data: Data) -> Object? {
        (try? JSONSerialization.jsonObject(with: data)) as? Object
    }

    /// A scalar as text (`"6002"` for `6002`), for statuses that come as numbers or strings.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let text as String: text.isEmpty ? nil : text
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }

    /// The broker's `error` object (or a bare status) as a ``WebviewHost/WebAuthError``, if the
    /// response carries one. Only the status fields are read; no message text (it may name the person).
    static func error(in response: Object, broker: String) -> WebAuthError? {
        let raw = response["error"] ?? (response["brokerTokenResponse"] as? Object)?["error"]
        guard let raw, !(raw is NSNull) else { return nil }
        let object = raw as? Object ?? [:]
        let status = text(object["status"]) ?? text(raw) ?? text(object["errorCode"])
        let details = TokenBrokerError(
            broker: broker, status: status, subStatus: text(object["subStatus"]) ?? text(object["errorCode"]),
            context: text(object["context"]))
        return mapped(status: status, details: details)
    }

    static func mapped(status: String?, details: TokenBrokerError) -> WebAuthError {
        let key = (status ?? "").lowercased().replacingOccurrences(of: "_", with: "")
        let shown = status ?? "no status"
        if key.contains("consent") {
            return WebAuthError(
                .consentRequired, "The identity broker needs consent to the requested scopes (\(shown)); sign in interactively.",
                underlyingError: details)
        }
        if key.contains("cancel") {
            return WebAuthError(.userCanceled, "The sign-in was cancelled in the identity broker (\(shown)).", underlyingError: details)
        }
        if key.contains("interaction") || key.contains("uirequired") || key.contains("loginrequired") || key.contains("noaccount")
            || key.contains("accountunusable") || key.contains("accountnotfound")
        {
            return WebAuthError(
                .interactionRequired, "The identity broker needs the person to sign in (\(shown)); call acquireToken.",
                underlyingError: details)
        }
        if key.contains("unavailable") || key.contains("notavailable") || key.contains("unreachable") {
            return WebAuthError(.brokerUnavailable, "The identity broker cannot serve the request now (\(shown)).", underlyingError: details)
        }
        return WebAuthError(
            .server, "The identity broker refused the request (\(shown)).",
            serverError: .init(error: status ?? "broker_error"), underlyingError: details)
    }

    /// The account object in a token response: inside `brokerTokenResponse` (brokers before
    /// 2.0.2), inside `authParameters` (2.0.2 and later), or at the top.
    static func account(in response: Object) -> Object? {
        let token = response["brokerTokenResponse"] as? Object
        return token?["account"] as? Object
            ?? (response["authParameters"] as? Object)?["account"] as? Object
            ?? (token?["authParameters"] as? Object)?["account"] as? Object
            ?? response["account"] as? Object
    }

    /// `expiresOn`: milliseconds since 1970 (a number or a numeric string); seconds if it is too
    /// small to be milliseconds of this century.
    static func date(_ value: Any?) -> Date? {
        guard let text = text(value), let number = Double(text), number.isFinite, number > 0 else { return nil }
        return Date(timeIntervalSince1970: number > 100_000_000_000 ? number / 1000 : number)
    }

    /// `grantedScopes`: an array of strings or one space-separated string.
    static func scopes(_ value: Any?) -> [String]? {
        if let list = value as? [Any] { return list.compactMap { $0 as? String } }
        if let text = value as? String { return text.split(separator: " ").map(String.init) }
        return nil
    }
}
