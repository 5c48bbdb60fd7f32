import CGLib
import CWebKitGTK3
import Foundation
import GLibSupport
import Synchronization
import SystemBrowserProvider
import WebviewHost

/// The measured side of the loopback figure: `sessions` system-browser sign-ins in this process
/// (the "browser" is a handler that exits at once), each ended by a callback that another thread
/// sends to the listener, as the soup floor does. Prints `callback <sent> <resumed>` per session.
enum LoopbackChild {
    final class SentTime: Sendable {
        let value = Mutex<Int64>(0)
    }

    final class HeldConnections: Sendable {
        let count: Int
        let fds = Mutex<[Int32]>([])
        init(count: Int) { self.count = count }
    }

    /// A connection to 127.0.0.1:`port`; -1 when it failed.
    static func connectLoopback(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// Opens `count` connections that each send a line of junk, and keeps the last `held` open.
    static func junk(port: Int, count: Int, held: Int) -> [Int32] {
        var open: [Int32] = []
        for index in 0..<count {
            let fd = connectLoopback(port: port)
            guard fd >= 0 else { continue }
            _ = "JUNK \(index)\r\n".withCString { write(fd, $0, strlen($0)) }
            if index >= count - held { open.append(fd) } else { close(fd) }
        }
        return open
    }

    static func openFileCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Connects to 127.0.0.1:`port` and sends the callback; the time just before the request left.
    static func sendCallback(port: Int, path: String) -> Int64 {
        let fd = connectLoopback(port: port)
        let connected: Int32 = fd >= 0 ? 0 : -1
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        let sent = Child.monotonicNanoseconds()
        if connected == 0 {
            _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(fd, &buffer, buffer.count) > 0 {}
        }
        close(fd)
        return sent
    }

    @MainActor
    /// With `junk`, before each callback another thread opens that many connections sending junk,
    /// `held` of them still open while the callback arrives; the process's open files are
    /// printed after the first session and after the last (`fds <first> <last>`).
    static func run(sessions: Int, junk junkCount: Int = 0, held heldCount: Int = 0) -> Never {
        MainLoopBridge.install()
        WebviewProviderRegistry.register(SystemBrowserProvider())
        Task { @MainActor in
            var filesAfterFirst = -1
            for index in 0..<sessions {
                let session = WebAuthSession(
                    redirectURI: URL(string: "http://127.0.0.1/callback")!,
                    parameters: WebviewParameters(webviewType: .authenticationSession, timeout: .seconds(30)))
                do {
                    let redirect = try await session.prepare()
                    let port = redirect.port ?? 0
                    let sent = SentTime()
                    let held = HeldConnections(count: heldCount)
                    let sender = Thread {
                        if junkCount > 0 {
                            let open = junk(port: port, count: junkCount, held: held.count)
                            held.fds.withLock { $0 = open }
                        }
                        // After the junk was taken in (the figure is the callback *after* it), or a moment
                        // after the listener opened.
                        Thread.sleep(forTimeInterval: junkCount > 0 ? 0.5 : 0.02)
                        let time = sendCallback(port: port, path: "/callback?code=the-code&state=s")
                        sent.value.withLock { $0 = time }
                    }
                    sender.start()
                    _ = try await session.start(authorizationURL: URL(string: "https://login.example/authorize")!, expectedState: "s")
                    let resumed = Child.monotonicNanoseconds()
                    while sent.value.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
                    Child.say("callback \(sent.value.withLock { $0 }) \(resumed)")
                    for fd in held.fds.withLock({ $0 }) { close(fd) }
                    if index == 0 {
                        // What the first session leaves for good (GIO's own, a D-Bus connection) is
                        // the baseline; the listener lets go of what it still answers within seconds.
                        try await Task.sleep(for: .seconds(3))
                        filesAfterFirst = openFileCount()
                    }
                } catch {
                    Child.say("error \(error)")
                    exit(1)
                }
            }
            // The listener lets go of connections it still answers within a few seconds.
            try? await Task.sleep(for: .seconds(3))
            Child.say("fds \(filesAfterFirst) \(openFileCount())")
            exit(0)
        }
        g_main_loop_run(g_main_loop_new(nil, 0))
        exit(1)
    }
}
