// A second (and third) process for SignInTests' token cache tests: each run makes its own
// PublicClientApplication over the store named in STORE and does one thing, so that what it
// finds can only have come from the store, never from another process's memory.
//
//   sign-in                       signs alice in through the scripted browser (Glewlwyd)
//   sign-in-keep DIR              signs in, renews silently in this process, writes DIR/signed-in.json,
//                                 waits for DIR/go, then saveUnsavedTokens()
//   refresh-rounds ACCOUNT_ID ROUNDS DIR NAME OTHER
//                                 ROUNDS times: meets process OTHER at DIR/<name>-<round>, then
//                                 NAME "a" expires the stored access tokens, then both acquireTokenSilent
//   silent ACCOUNT_ID [force]     acquireTokenSilent, no user agent registered
//   concurrent-silent ACCOUNT_ID  two acquireTokenSilent at once
//   accounts                      allAccounts()
//   remove ACCOUNT_ID             remove(account)
//   write-loop WRITER COUNT       COUNT cache writes of a made-up account "WRITER"
//   hold-lock KEY DIR             holds the store's refresh lock for KEY, writes DIR/held, waits to be killed
//   dump FILE                     copies the stored cache bytes to FILE (0600)
//   clear                         deletes the Secret Service item
//   device-code                   signs in with a device code shown in the terminal (standard error)
//
// Environment: STORE (memory | file:PATH | app:APPLICATION_ID | secret:SCHEMA:VALUE), ISSUER, CLIENT_ID,
// CLOCK_OFFSET (seconds added to the clock), STORE_UNAVAILABLE (stop: the app's answer when the store cannot be opened), STORE_TIMEOUT (Secret Service time limit), BROWSER_SCRIPT, USERNAME, PASSWORD.
// Prints one line `RESULT {json}`: the outcome, or {"error": ...}; token values appear only as
// SHA-256 prefixes.
import Crypto
import Foundation
import ScenarioSupport
import WebviewHost

@testable import SignIn
@testable import TokenCache

let processStarted = Date()
let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: .sortedKeys)
    print("RESULT " + String(decoding: data, as: UTF8.self))
}

func fingerprint(_ token: String?) -> String {
    guard let token else { return "" }
    return SHA256.hash(data: Data(token.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
}

func fail(_ message: String) -> Never {
    emit(["error": ["code": "scenario", "message": message]])
    exit(1)
}

// Never a hang: whatever happens, the process ends.
DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(environment["SCENARIO_TIMEOUT"] ?? "90") ?? 90)) {
    emit(["error": ["code": "scenarioTimedOut", "message": "the scenario did not finish in time"]])
    exit(3)
}

func makeStorage() -> any TokenCacheStorage {
    let spec = environment["STORE"] ?? "memory"
    if spec == "memory" { return InMemoryTokenCacheStorage() }
    if spec.hasPrefix("app:") {
        do throws(TokenCacheStorageError) {
            return try FileTokenCacheStorage(applicationID: String(spec.dropFirst(4)))
        } catch {
            fail(error.message)
        }
    }
    if spec.hasPrefix("file:") { return FileTokenCacheStorage(fileURL: URL(fileURLWithPath: String(spec.dropFirst(5)))) }
    if spec.hasPrefix("secret:") {
        let parts = spec.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3 else { fail("STORE=secret:SCHEMA:VALUE") }
        do throws(TokenCacheStorageError) {
            let timeout = TimeInterval(environment["STORE_TIMEOUT"] ?? "15") ?? 15
            return try SecretServiceTokenCacheStorage(schemaName: parts[1], attributes: ["cache": parts[2]], timeout: timeout)
        } catch {
            fail(error.message)
        }
    }
    fail("unknown STORE \(spec)")
}

let storage = makeStorage()
let issuer = URL(string: environment["ISSUER"] ?? "http://127.0.0.1:4617/api/oidc")!
let clientID = environment["CLIENT_ID"] ?? "webviewhost-tests"
let clockOffset = TimeInterval(environment["CLOCK_OFFSET"] ?? "0") ?? 0
let application: PublicClientApplication
do {
    application = try PublicClientApplication(configuration: .init(
        clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
        defaultScopes: ["openid", "profile", "email", "offline_access"], networkTimeout: 15,
        now: { Date().addingTimeInterval(clockOffset) }, tokenCacheStorage: storage,
        tokenCacheUnavailable: { _ in environment["STORE_UNAVAILABLE"] == "stop" ? .stop : .keepInMemoryForThisRun }))
} catch {
    fail("\(error)")
}

func report(_ error: WebAuthError) -> Never {
    // elapsed: how long this process took to fail, measured here (the test process may be busy).
    var fields: [String: Any] = ["code": error.code.name, "message": error.message, "elapsed": Date().timeIntervalSince(processStarted)]
    if let storageError = error.underlyingError as? TokenCacheStorageError { fields["storageCode"] = storageError.code.name }
    emit(["error": fields])
    exit(1)
}

func account(_ identifier: String) async -> Account {
    do throws(WebAuthError) {
        guard let found = try await application.allAccounts().first(where: { $0.identifier == identifier }) else {
            report(WebAuthError(.interactionRequired, "no account \(identifier) in the store"))
        }
        return found
    } catch {
        report(error)
    }
}

/// Waits (polling, bounded) until `file` exists.
func waitForFile(_ file: URL, seconds: Double) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !FileManager.default.fileExists(atPath: file.path) {
        guard Date() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Marks every access token in the store as expired (under the store's writer lock), so the next
/// silent call must renew.
func expireAccessTokens() {
    do throws(TokenCacheStorageError) {
        try storage.withWriterLock { () throws(TokenCacheStorageError) in
            guard let data = try storage.load(),
                var document = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                var tokens = document["AccessToken"] as? [String: [String: Any]]
            else { return }
            for key in tokens.keys { tokens[key]?["expires_on"] = "0" }
            document["AccessToken"] = tokens
            try storage.save(try! JSONSerialization.data(withJSONObject: document, options: .sortedKeys))
        }
    } catch {
        fail("could not expire the access tokens: \(error.message)")
    }
}

func describe(_ result: AuthenticationResult) -> [String: Any] {
    [
        "account": result.account.identifier, "subject": result.account.subject, "homeAccountID": result.account.homeAccountID,
        "accessToken": fingerprint(result.accessToken),
        "refreshToken": fingerprint(result.refreshToken), "expiresOn": Int(result.expiresOn.timeIntervalSince1970),
        "scopes": result.scopes.sorted(), "tokenCacheError": result.tokenCacheError?.code.name ?? "",
    ]
}

/// An interactive sign-in through ScenarioSupport's scripted browser, the sign-in commands' web
/// user agent: `BROWSER_SCRIPT` (`Tests/Fixtures/Glewlwyd/browser_signin.py` or a script that
/// takes its arguments) signs in as USERNAME with PASSWORD.
func signInThroughScriptedBrowser() async throws(WebAuthError) -> AuthenticationResult {
    let person = ScriptedBrowserProvider.Credentials(username: environment["USERNAME"] ?? "alice", password: environment["PASSWORD"] ?? "")
    let provider = ScriptedBrowserProvider(
        script: URL(fileURLWithPath: environment["BROWSER_SCRIPT"] ?? "browser_signin.py"), behavior: .signIn([person]),
        loopbackPort: 23682, requestTimeout: 30, timeout: .seconds(90))
    WebviewProviderRegistry.register(provider)
    return try await application.acquireToken(with: .init(scopes: [], webviewParameters: .init(webviewType: .provider(provider.id))))
}

guard let command = arguments.first.flatMap(TokenCacheCommand.init(rawValue:)) else {
    fail("unknown command \(arguments.first ?? "(none)"): one of \(TokenCacheCommand.allCases.map(\.rawValue).joined(separator: ", "))")
}
switch command {
case .deviceCode:
    // The device code in the terminal this runs in (standard error), as a program without a window shows it.
    do throws(WebAuthError) {
        emit(describe(try await application.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .terminal))))
    } catch {
        report(error)
    }

case .signIn:
    do throws(WebAuthError) {
        let result = try await signInThroughScriptedBrowser()
        var fields = describe(result)
        fields["accounts"] = application.accounts.map(\.identifier)
        emit(fields)
    } catch {
        report(error)
    }

case .signInKeep:
    guard arguments.count >= 2 else { fail("sign-in-keep DIR") }
    let directory = URL(fileURLWithPath: arguments[1])
    do throws(WebAuthError) {
        let result = try await signInThroughScriptedBrowser()
        var fields = describe(result)
        fields["tokenCacheError"] = result.tokenCacheError?.code.name ?? ""
        fields["tokenCacheMessage"] = result.tokenCacheError?.message ?? ""
        let silent = try await application.acquireTokenSilent(with: .init(scopes: [], account: result.account))
        fields["silentAccessToken"] = fingerprint(silent.accessToken)
        fields["silentTokenCacheError"] = silent.tokenCacheError?.code.name ?? ""
        let data = try! JSONSerialization.data(withJSONObject: fields, options: .sortedKeys)
        try! data.write(to: directory.appendingPathComponent("signed-in.json.tmp"))
        try! FileManager.default.moveItem(
            at: directory.appendingPathComponent("signed-in.json.tmp"), to: directory.appendingPathComponent("signed-in.json"))
    } catch {
        report(error)
    }
    // The test makes the store work again, then says go.
    guard await waitForFile(directory.appendingPathComponent("go"), seconds: 60) else { fail("no go file within 60 s") }
    do throws(WebAuthError) {
        try await application.saveUnsavedTokens()
        emit(["saved": true, "unsaved": application.unsavedTokensError?.code.name ?? ""])
    } catch {
        report(error)
    }

case .refreshRounds:
    guard arguments.count >= 6, let rounds = Int(arguments[2]) else { fail("refresh-rounds ACCOUNT_ID ROUNDS DIR NAME OTHER") }
    let found = await account(arguments[1])
    let directory = URL(fileURLWithPath: arguments[3])
    let name = arguments[4], other = arguments[5]
    var results: [[String: Any]] = []
    for round in 1...rounds {
        // Both are done with the round before; then "a" expires the access tokens and both go.
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("\(name)-\(round)").path, contents: nil)
        guard await waitForFile(directory.appendingPathComponent("\(other)-\(round)"), seconds: 60) else {
            fail("process \(other) did not reach round \(round) within 60 s")
        }
        let expired = directory.appendingPathComponent("expired-\(round)")
        if name == "a" {
            expireAccessTokens()
            _ = FileManager.default.createFile(atPath: expired.path, contents: nil)
        } else {
            guard await waitForFile(expired, seconds: 60) else { fail("the tokens of round \(round) were not expired within 60 s") }
        }
        do throws(WebAuthError) {
            let result = try await application.acquireTokenSilent(with: .init(scopes: [], account: found))
            results.append(["accessToken": fingerprint(result.accessToken), "refreshToken": fingerprint(result.refreshToken)])
        } catch {
            var failure: [String: Any] = ["round": round, "code": error.code.name, "message": error.message]
            if let server = error.serverError { failure["serverError"] = server.error }
            emit(["error": failure, "rounds": results])
            exit(1)
        }
    }
    emit(["rounds": results])

case .silent:
    guard arguments.count >= 2 else { fail("silent ACCOUNT_ID [force]") }
    let before = application.accounts.map(\.identifier)
    let found = await account(arguments[1])
    do throws(WebAuthError) {
        let result = try await application.acquireTokenSilent(with: .init(scopes: [], account: found, forceRefresh: arguments.count > 2))
        var fields = describe(result)
        fields["accountsBeforeReading"] = before
        fields["accounts"] = try await application.allAccounts().map(\.identifier)
        emit(fields)
    } catch {
        report(error)
    }

case .concurrentSilent:
    guard arguments.count >= 2 else { fail("concurrent-silent ACCOUNT_ID") }
    let found = await account(arguments[1])
    @Sendable func silent() async -> Result<AuthenticationResult, WebAuthError> {
        do throws(WebAuthError) {
            return .success(try await application.acquireTokenSilent(with: .init(scopes: [], account: found)))
        } catch {
            return .failure(error)
        }
    }
    async let first = silent()
    async let second = silent()
    let results = await [first, second]
    var tokens: [String] = []
    for result in results {
        switch result {
        case .success(let tokenResult): tokens.append(fingerprint(tokenResult.accessToken))
        case .failure(let error): report(error)
        }
    }
    emit(["accessTokens": tokens])

case .accounts:
    do throws(WebAuthError) {
        emit(["accounts": try await application.allAccounts().map(\.identifier)])
    } catch {
        report(error)
    }

case .remove:
    guard arguments.count >= 2 else { fail("remove ACCOUNT_ID") }
    let found = await account(arguments[1])
    do throws(WebAuthError) {
        let removed = try await application.remove(found)
        emit(["removed": removed, "accounts": try await application.allAccounts().map(\.identifier)])
    } catch {
        report(error)
    }

case .writeLoop:
    guard arguments.count >= 3, let count = Int(arguments[2]) else { fail("write-loop WRITER COUNT") }
    let writer = arguments[1]
    let now = Date()
    let claims: [String: Any] = [
        "iss": issuer.absoluteString, "sub": writer, "aud": clientID, "exp": Int(now.timeIntervalSince1970) + 3600,
        "iat": Int(now.timeIntervalSince1970), "preferred_username": "\(writer)@example.com",
    ]
    let payload = try! JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
    let idToken = "eyJhbGciOiJub25lIn0.\(Base64URL.encode(payload)).c2ln"
    let idTokenClaims = try! IDTokenClaims(json: payload)
    for index in 1...count {
        let entry = TokenCache.Entry(
            account: Account(claims: idTokenClaims), scopes: ["openid", "profile", "offline_access"],
            accessToken: "at-\(writer)-\(index)", expiresOn: now.addingTimeInterval(3600), idToken: idToken,
            idTokenClaims: idTokenClaims, refreshToken: "rt-\(writer)-\(index)")
        do throws(WebAuthError) {
            try await application.cache.store(entry, now: now)
        } catch {
            report(error)
        }
    }
    emit(["written": count])

case .holdLock:
    guard arguments.count >= 3, let lock = storage.refreshLock(for: arguments[1]) else { fail("hold-lock KEY DIR (a file or Secret Service store)") }
    do throws(TokenCacheStorageError) {
        let held = try await lock.acquire()
        _ = FileManager.default.createFile(atPath: URL(fileURLWithPath: arguments[2]).appendingPathComponent("held").path, contents: nil)
        // Until killed (the scenario's own time limit ends it otherwise).
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
        held.release()
    } catch {
        fail(error.message)
    }

case .clear:
    guard let secretStore = storage as? SecretServiceTokenCacheStorage else { fail("clear needs STORE=secret:...") }
    do throws(TokenCacheStorageError) {
        emit(["cleared": try secretStore.clear()])
    } catch {
        emit(["error": ["code": "storage", "storageCode": error.code.name, "message": error.message]])
        exit(1)
    }

case .dump:
    guard arguments.count >= 2 else { fail("dump FILE") }
    do throws(TokenCacheStorageError) {
        let data = try storage.load() ?? Data()
        _ = FileManager.default.createFile(atPath: arguments[1], contents: data, attributes: [.posixPermissions: 0o600])
        emit(["bytes": data.count])
    } catch {
        emit(["error": ["code": "storage", "storageCode": error.code.name, "message": error.message]])
        exit(1)
    }
}
exit(0)
