/// The hosts of Microsoft Entra ID's clouds, as MSAL knows them without asking the network
/// (MSAL.NET's `KnownMetadataProvider`, msal-python's `WELL_KNOWN_AUTHORITY_HOSTS`): which
/// authorities get `client_info`, and which cache `environment`s name the same cloud.
package enum MicrosoftEntraHosts {
    /// Each cloud's aliases: MSAL writes one of them as `environment` (msal-python the authority's
    /// own host, MSAL.NET the cloud's "preferred cache" host, `login.windows.net` for the public
    /// cloud) and reads any.
    package static let clouds: [[String]] = [
        ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"],
        ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"],
        ["login.microsoftonline.de"],
        ["login.microsoftonline.us", "login.usgovcloudapi.net"],
        ["login-us.microsoftonline.com"],
        ["login.windows-ppe.net", "sts.windows-ppe.net", "login.microsoft-ppe.com"],
        ["login.sovcloud-identity.fr"],
        ["login.sovcloud-identity.de"],
        ["login.sovcloud-identity.sg"],
    ]

    /// Host suffixes of Entra External ID (CIAM) and Azure AD B2C tenants.
    package static let tenantHostSuffixes = [".ciamlogin.com", ".b2clogin.com", ".b2clogin.cn", ".b2clogin.us", ".b2clogin.de"]

    /// Whether `host` (lowercased) is one of Microsoft Entra ID's.
    package static func contains(_ host: String) -> Bool {
        clouds.contains { $0.contains(host) } || tenantHostSuffixes.contains { host.hasSuffix($0) }
    }

    /// `host` and the other hosts of its cloud (just `host` when it is not a known cloud host).
    package static func aliases(of host: String) -> [String] {
        clouds.first { $0.contains(host) } ?? [host]
    }
}
