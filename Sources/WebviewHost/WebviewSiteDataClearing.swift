/// A provider whose user agent keeps site data (cookies, storage) the library can reach and
/// forget: what signing out of an identity provider without an end-session endpoint falls back
/// to. The embedded view conforms; the person's browser cannot (its data is the browser's).
public protocol WebviewSiteDataClearing: WebviewProvider {
    /// Deletes every kind of site data (cookies, local storage, IndexedDB, caches) that `hosts`
    /// left in the store a session with `parameters` would use (the library's persistent store,
    /// or a `customWebview`'s own), and nothing of other sites. Returns the site names whose data
    /// was deleted (WebKit groups data by registrable domain: `example.com` for `login.example.com`).
    ///
    /// - Throws: `invalidParameters` for parameters this provider cannot serve; the store's
    ///   error otherwise.
    @MainActor
    func clearSiteData(forHosts hosts: [String], parameters: WebviewParameters) async throws(WebAuthError) -> [String]
}

/// What ``WebAuthSession/clearSiteData(forHosts:parameters:environment:)`` could do.
public enum SiteDataClearing: Sendable, Hashable {
    /// The provider that would serve the parameters deleted the data of these sites.
    case cleared(provider: WebviewProviderID, sites: [String])
    /// That provider keeps no data the library can reach (the person's browser), or none would
    /// be chosen: why, in a sentence.
    case notPossible(provider: WebviewProviderID?, reason: String)
}

extension WebAuthSession {
    /// Asks the provider a session with `parameters` would use to forget what `hosts` stored in
    /// its user agent (see ``WebviewSiteDataClearing``). Main thread.
    @MainActor
    public static func clearSiteData(
        forHosts hosts: [String], parameters: WebviewParameters, environment: WebviewEnvironment = .current
    ) async throws(WebAuthError) -> SiteDataClearing {
        let store = ProviderStore.current
        let provider: any WebviewProvider
        do throws(WebAuthError) {
            provider = try store.selectProvider(for: parameters, in: environment)
        } catch {
            return .notPossible(provider: nil, reason: error.message)
        }
        guard let clearing = provider as? any WebviewSiteDataClearing else {
            return .notPossible(
                provider: provider.id,
                reason: "\(provider.displayName) keeps its site data where this app cannot reach it (the person's browser signs out on the site itself).")
        }
        return .cleared(provider: provider.id, sites: try await clearing.clearSiteData(forHosts: hosts, parameters: parameters))
    }
}
