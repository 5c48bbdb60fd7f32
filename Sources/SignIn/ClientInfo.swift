import Foundation
import WebviewHost

/// Microsoft Entra ID's `client_info` (sent by the token endpoint when the request carries
/// `client_info=1`): base64url JSON with the account's object ID `uid` in its home tenant `utid`.
/// MSAL keys accounts by it: `home_account_id` is `<uid>.<utid>`.
struct ClientInfo: Sendable, Equatable {
    let uid: String
    let utid: String

    /// The decoded `client_info`, or nil when it is not base64url JSON with string `uid` and
    /// `utid` (MSAL then keys the account by `sub`, and so does this library).
    init?(encoded: String) {
        // Padding is tolerated, as MSAL does.
        let unpadded = encoded.hasSuffix("=") ? String(encoded.prefix { $0 != "=" }) : encoded
        guard let data = Base64URL.decode(unpadded),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let uid = object["uid"] as? String, let utid = object["utid"] as? String, !uid.isEmpty, !utid.isEmpty
        else { return nil }
        self.uid = uid
        self.utid = utid
    }

    /// MSAL's `home_account_id`: `<uid>.<utid>`.
    var homeAccountID: String { "\(uid).\(utid)" }
}
