import Foundation
import WebviewHost
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP to the identity provider: JSON GETs and form POSTs, each bounded by a timeout, every
/// failure turned into a ``WebAuthError``.
struct ProviderConnection: Sendable {
    private let session: URLSession
    private let timeout: TimeInterval
    /// The sandbox this process runs in (read once): a failure in one without network says so.
    private static let sandbox = WebviewEnvironment.current.sandbox

    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    /// The status and body of a GET; throws `network` when the provider cannot be reached.
    func get(_ url: URL) async throws(WebAuthError) -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try await send(request)
    }

    /// A GET with the access token as a bearer token (RFC 6750 2.1): the userinfo endpoint.
    func get(_ url: URL, bearer accessToken: String) async throws(WebAuthError) -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer " + accessToken, forHTTPHeaderField: "Authorization")
        return try await send(request)
    }

    /// The status and body of an `application/x-www-form-urlencoded` POST.
    func postForm(_ url: URL, _ form: [(String, String)]) async throws(WebAuthError) -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(FormEncoding.encode(form).utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws(WebAuthError) -> (status: Int, body: Data) {
        let url = request.url
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw WebAuthError(.invalidResponse, "The sign-in server's answer was not HTTP.", url: url)
            }
            return (http.statusCode, data)
        } catch let error as WebAuthError {
            throw error
        } catch let error as URLError {
            let what = error.code == .timedOut ? "did not answer within \(Int(timeout)) seconds" : "could not be reached (\(error.localizedDescription))"
            if let sandbox = Self.sandbox, sandbox.sharesNetwork == false {
                // Nothing outside can be reached: say what the sandbox lacks, not "check the network".
                throw WebAuthError(
                    .network,
                    "The sign-in server at \(url?.host ?? "?") \(what): this app runs in a Flatpak sandbox without network access. "
                        + "The app's manifest needs `--share=network` in finish-args "
                        + "(or `flatpak override --share=network \(sandbox.applicationID ?? "<app id>")` for this machine).",
                    url: url, underlyingError: error)
            }
            throw WebAuthError(.network, "The sign-in server at \(url?.host ?? "?") \(what); check the network and try again.", url: url, underlyingError: error)
        } catch {
            throw WebAuthError(.network, "The request to the sign-in server failed: \(error).", url: url)
        }
    }
}
