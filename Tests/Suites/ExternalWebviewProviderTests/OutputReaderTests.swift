import Foundation
import ScenarioSupport
import Synchronization
import Testing

@testable import ExternalWebviewProvider

#if canImport(Glibc)
    import Glibc
#endif

@Suite("OutputReader: a plugin's output, read off the main thread")
struct OutputReaderTests {
    /// The usual order when a plugin exits first: its output ends, the reader's thread ends, and
    /// only then does the session stop the reader. That stop must not write into a descriptor
    /// the process has since opened for something else (a D-Bus or display connection, another
    /// plugin's pipe): the number is free for reuse as soon as it is closed.
    @Test("stop() after the output ended writes into no descriptor opened since")
    @MainActor
    func stopAfterEnd() async throws {
        for _ in 0..<20 {
            var output: [Int32] = [-1, -1]
            try #require(pipe(&output) == 0)
            let ended = Mutex(false)
            let made = OutputReader(fd: output[0], onChunk: { _ in }, onEnd: { ended.withLock { $0 = true } })
            let reader = try #require(made)
            close(output[1])  // end of file
            #expect(await ScenarioHost.wait { ended.withLock { $0 } }, "the end was delivered")
            // Whatever the reader's thread closed is handed out again, lowest numbers first.
            var catchers: [[Int32]] = []
            for _ in 0..<4 {
                var fds: [Int32] = [-1, -1]
                try #require(pipe(&fds) == 0)
                _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
                catchers.append(fds)
            }
            reader.stop()
            for fds in catchers {
                var byte: UInt8 = 0
                #expect(read(fds[0], &byte, 1) == -1, "pipe \(fds) received a byte meant for the stopped reader")
                close(fds[0])
                close(fds[1])
            }
        }
    }
}
