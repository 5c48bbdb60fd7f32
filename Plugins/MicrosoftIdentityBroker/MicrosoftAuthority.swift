import Foundation

/// Which authorities Microsoft's broker serves: Entra ID (Azure AD) in the clouds it knows; not
/// Azure AD B2C and not AD FS, which MSAL never brokers either.
struct MicrosoftAuthority {
    /// The sign-in hosts of Entra ID's clouds (public, US government, China, and the legacy names).
    static let entraHosts: Set<String> = [
        "login.microsoftonline.com", "login.microsoft.com", "login.windows.net", "sts.windows.net",
        "login.microsoftonline.us", "login.usgovcloudapi.net", "login.chinacloudapi.cn", "login.partner.microsoftonline.cn",
    ]

    /// Why the broker does not serve `authority`, or `nil` when it does.
    static func whyNotBrokered(_ authority: URL, hosts: Set<String>) -> String? {
        guard let host = authority.host?.lowercased() else { return "the authority \(authority) has no host" }
        let segments = authority.path.split(separator: "/").map { $0.lowercased() }
        if host.hasSuffix(".b2clogin.com") || host == "b2clogin.com" || segments.first == "tfp"
            || segments.contains(where: { $0.hasPrefix("b2c_") })
        {
            return "Azure AD B2C authorities are not brokered"
        }
        if segments.first == "adfs" { return "AD FS authorities are not brokered" }
        guard hosts.contains(host) else { return "\(host) is not an Entra ID sign-in host the broker serves" }
        return nil
    }
}
