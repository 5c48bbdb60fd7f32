import ExternalWebviewProvider
import Foundation
import ScenarioSupport
import Testing
import WebviewHost
import WebviewHostTestKit

/// The end of a plugin as the kernel sees it, and the protocol's limits as the docs
/// (`ExternalProviders.md`) write them. Serialized like the other session suites.
@Suite("External providers: a plugin's exit and the documented limits", .serialized)
@MainActor
struct ProtocolLimitsTests {
    @Test("A plugin that exits while a program it started holds its output fails the session at once, and nothing is left")
    func exitWhileOutputHeld() async throws {
        let temp = try TemporaryDirectory()
        let clock = ContinuousClock()
        let started = clock.now
        // The session's own timeout is the 10-minute fallback; the app cancels after 60 s, so a
        // host that waits for the end of the pipe ends with `canceled` instead of hanging the suite.
        let (result, events) = await runSession(
            behaviourProvider("exit-holding-output", pids: temp.url), page: "wait", cancelAfter: .seconds(60))
        let elapsed = clock.now - started
        #expect(result.error?.code == .externalProviderFailed, "\(result)")
        #expect(result.error?.message.contains("exit status 7") == true, "\(result.error?.message ?? "success")")
        #expect(elapsed < .seconds(60), "it failed when the plugin exited, not when something gave up waiting (\(elapsed))")
        #expect(events.filter { $0 == "didFail" || $0 == "didComplete" } == ["didFail"])
        #expect(recordedCount(in: temp.url) == 2, "the plugin and the program holding its output")
        #expect(await survivors(in: temp.url) == [], "the plugin is reaped (no zombie) and the holder killed")
    }

    @Test("A fail message of any length ends the session with its code and one line of 500 characters")
    func longFailMessage() async throws {
        let (result, events) = await runSession(behaviourProvider("long-fail"), page: "wait")
        let message = try #require(result.error?.message)
        #expect(result.error?.code == .network, "\(result)")
        #expect(message.count == 500)
        #expect(message.hasPrefix("The page failed. Second line. xxx"))
        #expect(message.hasSuffix("x…"))
        #expect(!message.contains("\n"))
        #expect(events.last == "didFail")
    }

    @Test(
        "A plugin echoing a long authorization URL in didStartLoad is taken at its word",
        arguments: [20 * 1024, 100 * 1024, 500 * 1024])
    func longURLEcho(length: Int) async throws {
        let provider = behaviourProvider("autopilot")
        let (result, records) = await WebviewProviderRegistry.withIsolatedRegistry {
            () async -> (Result<WebAuthResponse, WebAuthError>, [WebAuthEventRecorder.Record]) in
            WebviewProviderRegistry.register(provider)
            let session = WebAuthSession(
                redirectURI: redirect, parameters: WebviewParameters(webviewType: .provider(provider.id)),
                environment: headless)
            let recorder = WebAuthEventRecorder(session: session)
            let state = "s\(Int.random(in: 1...1_000_000))"
            // A request object carried in the query, as some providers' authorization URLs do.
            let url = URL(
                string: authorization("ok", state: state).absoluteString + "&request=" + String(repeating: "a", count: length))!
            do throws(WebAuthError) {
                _ = try await session.prepare()
                let response = try await session.start(authorizationURL: url, expectedState: state)
                return (.success(response), recorder.records)
            } catch {
                return (.failure(error), recorder.records)
            }
        }
        #expect(try result.get().code == "external", "\(result)")
        let started = try #require(records.first { $0.shortName == "didStartLoad" })
        #expect(started.url?.absoluteString.utf8.count ?? 0 > length, "the whole URL, as the app sent it")
        #expect(started.url?.query?.hasSuffix(String(repeating: "a", count: 64)) == true)
    }

    /// A pipe holds 1 MiB at most (`/proc/sys/fs/pipe-max-size`): the rest of a longer line is
    /// written when the plugin has read some, an event the host waits for (it no longer looks
    /// every 100 ms). Were the event missed, the rest would wait for the line's deadline and the
    /// session would end with `externalProviderProtocol` there: the outcome says it, not a clock
    /// (a debug build on two busy cores took 19 s to echo the line, within its 20 s deadline).
    @Test("A line longer than the pipe can hold is written as the plugin reads it: the sign-in ends with the plugin's callback, not at the line's deadline")
    func lineLongerThanThePipe() async throws {
        // Over the 1 MiB a pipe can hold, and no more: the plugin echoes it, and the host reads a
        // long line in time that grows with its square.
        let length = 1152 * 1024
        let provider = behaviourProvider("autopilot")
        let result = await WebviewProviderRegistry.withIsolatedRegistry { () async -> Result<WebAuthResponse, WebAuthError> in
            WebviewProviderRegistry.register(provider)
            let session = WebAuthSession(
                redirectURI: redirect, parameters: WebviewParameters(webviewType: .provider(provider.id)), environment: headless)
            let url = URL(string: authorization("ok", state: "long").absoluteString + "&request=" + String(repeating: "b", count: length))!
            do throws(WebAuthError) {
                _ = try await session.prepare()
                return .success(try await session.start(authorizationURL: url, expectedState: "long"))
            } catch {
                return .failure(error)
            }
        }
        #expect(try result.get().code == "external", "\(result)")
    }

    /// Issue 27, item 4: the docs promise `externalProviderProtocol` for a plugin that does not read
    /// the host's line in time; with a 1 MB authorization URL the session used to wait for its timeout.
    @Test(
        "A plugin that stops reading its input ends the session with externalProviderProtocol within the input deadline",
        arguments: [1_000_000, 100 * 1024, 10])
    func pluginThatStopsReading(urlLength: Int) async throws {
        let temp = try TemporaryDirectory()
        let provider = behaviourProvider("stop-reading", pids: temp.url, limits: .init(inputReadTimeout: .seconds(2)))
        let clock = ContinuousClock()
        let started = clock.now
        let (result, events) = await runSession(
            provider, page: "wait&request=" + String(repeating: "a", count: urlLength), timeout: .seconds(60))
        let elapsed = clock.now - started
        #expect(result.error?.code == .externalProviderProtocol, "\(result)")
        #expect(result.error?.message.contains("did not read") == true, "\(result.error?.message ?? "")")
        #expect(elapsed < .seconds(30), "it ended at the input deadline, not at the session's timeout (\(elapsed))")
        #expect(events.filter { $0 == "didFail" || $0 == "didComplete" } == ["didFail"])
        // It ignores SIGTERM and never reads its input's end: ended with SIGKILL after the grace.
        #expect(await survivors(in: temp.url) == [], "the plugin is killed and reaped")
    }

    @Test("A line longer than the documented limit (and than any URL the host sent) still ends the session")
    func lineLimitStays() async throws {
        let (result, _) = await runSession(behaviourProvider("oversized"), timeout: .seconds(30))
        #expect(result.error?.code == .externalProviderProtocol)
        #expect(result.error?.message.contains("a line longer than 65536 bytes") == true, "\(result)")
    }

    struct Exec: Sendable, CustomTestStringConvertible {
        /// The `Exec=` value as written in the file.
        let written: String
        let arguments: [String]
        var testDescription: String { written }
    }

    @Test(
        "Every Exec quoting rule the docs give is read as the Desktop Entry Specification says",
        arguments: [
            // The docs' descriptor example.
            Exec(written: #"/usr/libexec/kiosk-signin --profile "sign in""#, arguments: ["/usr/libexec/kiosk-signin", "--profile", "sign in"]),
            Exec(written: #"/bin/p "a \\"quoted\\" word""#, arguments: ["/bin/p", #"a "quoted" word"#]),
            Exec(written: #"/bin/p "back\\\\slash""#, arguments: ["/bin/p", #"back\slash"#]),
            Exec(written: #"/bin/p "\\$HOME" "\\`date\\`""#, arguments: ["/bin/p", "$HOME", "`date`"]),
            Exec(written: #"/bin/p 100%% "50%%""#, arguments: ["/bin/p", "100%", "50%"]),
            Exec(written: #"/bin/p a\sb"#, arguments: ["/bin/p", "a", "b"]),
            Exec(written: #"/bin/p "a\sb""#, arguments: ["/bin/p", "a b"]),
            Exec(written: "/bin/p\t  \"\"  x", arguments: ["/bin/p", "", "x"]),
        ])
    func execQuoting(_ case: Exec) throws {
        let descriptor = try ProviderDescriptor(
            parsing: "[WebviewHost Provider]\nId=p\nName=p\nExec=\(`case`.written)\nProtocolVersion=1\n")
        #expect(descriptor.arguments == `case`.arguments)
    }

    @Test(
        "An Exec the Desktop Entry Specification does not allow is refused with what to write instead",
        arguments: [
            (#"/bin/p "a \"b\"""#, #"inside a quoted Exec argument, " is written \\""#),
            (#"/bin/p "a\\nb""#, #"only \", \`, \$ and \\ are escapes there"#),
            (#"/bin/p a\\b"#, "a backslash outside double quotes"),
            ("/bin/p %u", "field code %u"),
            ("/bin/p 5%", "lone %"),
        ])
    func execRefused(written: String, says: String) {
        #expect {
            try ProviderDescriptor(parsing: "[WebviewHost Provider]\nId=p\nName=p\nExec=\(written)\nProtocolVersion=1\n")
        } throws: { error in
            "\(error)".contains(says)
        }
    }

    @Test("The docs' descriptor and every Exec line of their quoting table are accepted as written")
    func docsExamples() throws {
        let docs = try String(
            contentsOf: Checkout.root.appendingPathComponent("Sources/WebviewHost/Docs.docc/ExternalProviders.md"), encoding: .utf8)
        let example = try #require(docs.components(separatedBy: "```ini\n").dropFirst().first?.components(separatedBy: "```").first)
        let descriptor = try ProviderDescriptor(parsing: example)
        #expect(descriptor.arguments == ["/usr/libexec/kiosk-signin", "--profile", "sign in"])
        let rows = docs.split(separator: "\n").filter { $0.hasPrefix("| `Exec=") || $0.hasPrefix("| `` Exec=") }
        #expect(rows.count == 5)
        for row in rows {
            let cell = row.dropFirst(2).prefix { $0 != "|" }.trimmingCharacters(in: CharacterSet(charactersIn: "` "))
            let exec = String(cell.dropFirst("Exec=".count))
            let arguments = try ProviderDescriptor(parsing: "[WebviewHost Provider]\nId=p\nName=p\nExec=\(exec)\nProtocolVersion=1\n")
                .arguments
            #expect(arguments.count >= 2, "\(exec)")
        }
    }

    @Test("An escaped argument reaches the plugin as the descriptor means it")
    func escapedArgumentReachesPlugin() async throws {
        let temp = try TemporaryDirectory()
        let file = temp.url.appendingPathComponent("escaped.provider")
        // The test plugin's --pids folder, named with a quote, a backslash and a dollar sign.
        let folder = try temp.subdirectory(#"pids "q" \ $x"#)
        try #"""
        [WebviewHost Provider]
        Id=escaped
        Name=Escaped
        Exec=\#(python) \#(behaviourScript) autopilot --pids "\#(temp.url.path)/pids \\"q\\" \\\\ \\$x"
        RequiresDisplay=false
        ProtocolVersion=1

        """#.write(to: file, atomically: true, encoding: .utf8)
        let descriptor = try ProviderDescriptor(contentsOf: file)
        #expect(descriptor.arguments.last == folder.path)
        let (result, _) = await runSession(ExternalProvider(descriptor: descriptor))
        #expect(try result.get().code == "external")
        #expect(recordedCount(in: folder) == 1, "the plugin wrote its process ID where the argument said")
    }
}
