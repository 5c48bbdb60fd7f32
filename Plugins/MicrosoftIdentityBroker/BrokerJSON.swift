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

    /// A scalar as text (`"6002"` for `6002`), for values that come as numbers or strings.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let text as String: text.isEmpty ? nil : text
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }

    /// The account object in a token response: inside `brokerTokenResponse` (sso-mib's reading,
    /// himmelblau's and the brokers' answers), or at the top (the cookie call's answers). Brokers
    /// 3.0.1 and later, and himmelblau, may send none.
    static func account(in response: Object) -> Object? {
        (response["brokerTokenResponse"] as? Object)?["account"] as? Object ?? response["account"] as? Object
    }

    /// The account an ID token names: `<oid>.<tid>` as the broker's `homeAccountId` is (the
    /// token's `sub` without them), its issuer, `preferred_username` and `name`. Read, not
    /// verified: the broker is trusted, as for the rest of its answer.
    static func account(fromIDToken idToken: String) -> Account? {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text), let claims = object(from: data),
            let issuer = claims["iss"] as? String, !issuer.isEmpty
        else { return nil }
        let subject: String
        if let oid = claims["oid"] as? String, let tid = claims["tid"] as? String, !oid.isEmpty, !tid.isEmpty {
            subject = "\(oid).\(tid)"
        } else if let sub = claims["sub"] as? String, !sub.isEmpty {
            subject = sub
        } else {
            return nil
        }
        return Account(subject: subject, issuer: issuer, username: claims["preferred_username"] as? String, name: claims["name"] as? String)
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
