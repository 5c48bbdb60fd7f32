import Foundation

/// The token cache as MSAL's unified cache format stores it, which every MSAL library (msal-python's
/// `SerializableTokenCache`, MSAL .NET, MSAL Java, msal-node...) reads and writes:
///
/// ```json
/// { "AccessToken":  { "<key>": { "credential_type": "AccessToken", "secret": ..., ... } },
///   "RefreshToken": { ... }, "IdToken": { ... }, "Account": { ... }, "AppMetadata": { ... } }
/// ```
///
/// Keys and fields follow msal-python 1.39.0 `token_cache.py` (its `key_makers` and `__add`;
/// which values go into them: ``TokenCache/Scope``):
/// times are strings of Unix seconds; keys are the `-`-joined fields, lowercased. The whole
/// document is kept as read, so sections and fields other libraries add survive a re-write.
struct MSALTokenCacheDocument: Sendable {
    enum Section: String, Sendable, CaseIterable {
        case accessToken = "AccessToken"
        case refreshToken = "RefreshToken"
        case idToken = "IdToken"
        case account = "Account"
        case appMetadata = "AppMetadata"
    }

    typealias Fields = [String: JSONValue]

    private(set) var root: [String: JSONValue]

    /// An empty cache.
    init() { root = [:] }

    /// The cache in `data`; no data, empty data or data that is not a JSON object is an empty cache.
    ///
    /// Unreadable content is not an error: nothing in it can be used, and failing every sign-in
    /// until someone deletes a keyring item by hand would be worse than signing in again.
    init(data: Data?) {
        guard let data, !data.isEmpty,
            let value = try? JSONDecoder().decode(JSONValue.self, from: data), let object = value.object
        else {
            root = [:]
            return
        }
        root = object
    }

    /// The JSON (sorted keys, so that an unchanged cache serializes to the same bytes).
    func serialized() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return (try? encoder.encode(JSONValue.object(root))) ?? Data("{}".utf8)
    }

    /// The entries of one section that are JSON objects, with their keys.
    func entries(_ section: Section) -> [(key: String, fields: Fields)] {
        guard let items = root[section.rawValue]?.object else { return [] }
        return items.compactMap { key, value in value.object.map { (key, $0) } }
    }

    /// Stores `fields` under `key`: fields already there that `fields` does not name are kept.
    mutating func put(_ section: Section, key: String, _ fields: Fields) {
        var items = root[section.rawValue]?.object ?? [:]
        var merged = items[key]?.object ?? [:]
        merged.merge(fields) { $1 }
        items[key] = .object(merged)
        root[section.rawValue] = .object(items)
    }

    /// Removes the section's entries for which `matches` is true; returns how many.
    @discardableResult
    mutating func remove(_ section: Section, where matches: (Fields) -> Bool) -> Int {
        guard var items = root[section.rawValue]?.object else { return 0 }
        let doomed = items.filter { _, value in value.object.map(matches) ?? false }.keys
        for key in doomed { items.removeValue(forKey: key) }
        root[section.rawValue] = .object(items)
        return doomed.count
    }

    // MARK: Keys (msal-python's key_makers)

    static func accessTokenKey(homeAccountID: String, environment: String, clientID: String, realm: String, target: String) -> String {
        [homeAccountID, environment, Section.accessToken.rawValue, clientID, realm, target].joined(separator: "-").lowercased()
    }

    static func refreshTokenKey(homeAccountID: String, environment: String, clientID: String, target: String) -> String {
        // The empty field is the realm: a refresh token is not tied to one tenant.
        [homeAccountID, environment, Section.refreshToken.rawValue, clientID, "", target].joined(separator: "-").lowercased()
    }

    static func idTokenKey(homeAccountID: String, environment: String, clientID: String, realm: String) -> String {
        // The trailing empty field is the target, which the schema requires empty for ID tokens.
        [homeAccountID, environment, Section.idToken.rawValue, clientID, realm, ""].joined(separator: "-").lowercased()
    }

    static func accountKey(homeAccountID: String, environment: String, realm: String) -> String {
        [homeAccountID, environment, realm].joined(separator: "-").lowercased()
    }

    static func appMetadataKey(environment: String, clientID: String) -> String {
        "appmetadata-\(environment)-\(clientID)"
    }
}

extension [String: JSONValue] {
    /// The string field `name`, if it is one.
    subscript(string name: String) -> String? { self[name]?.string }
}
