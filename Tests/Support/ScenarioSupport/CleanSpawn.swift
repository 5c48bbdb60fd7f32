public import Foundation
import Synchronization

/// Starts a program with an empty signal mask (`posix_spawnp` with `POSIX_SPAWN_SETSIGMASK`).
///
/// Foundation's `Process` spawns from the calling thread, and in a test process that is a
/// Dispatch worker thread, which blocks almost every signal: the child and everything it starts
/// inherit that mask, so `SIGTERM` (dbus-run-session ending its bus) and `SIGALRM` (the test
/// browser's own time limit) never arrive, and such processes outlive the test holding its pipes.
public struct CleanSpawn: Sendable {
    public let pid: pid_t
    /// The read ends of the child's standard output and standard error (`nil` when written to files).
    public let output: FileHandle?
    public let errors: FileHandle?

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `arguments[0]` (looked up on `PATH`) with `environment`; standard input is /dev/null, or the descriptor `input`.
    /// Standard output and error go to pipes (``output``, ``errors``), or to the files named in
    /// `outputFiles`: use files when the program may leave a daemon behind that would inherit a
    /// pipe and keep it open. With `processGroup`, the child leads a process group of its own
    /// (its id is ``pid``), so `kill(-pid, ...)` ends it and what it started, and nothing else.
    public init(
        _ arguments: [String], environment: [String: String], outputFiles: (output: String, errors: String)? = nil,
        processGroup: Bool = false, input: Int32? = nil
    ) throws {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        if outputFiles == nil {
            guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
                throw Failure(description: "pipe failed: errno \(errno)")
            }
            // Close-on-exec: other children started later do not inherit these ends (dup2 clears it for this one).
            for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let outputFiles {
            posix_spawn_file_actions_addopen(&actions, 1, outputFiles.output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, outputFiles.errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | (processGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = Self.withTestBuses(environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        for fd in [outPipe[1], errPipe[1]] where fd >= 0 { close(fd) }
        guard status == 0 else {
            for fd in [outPipe[0], errPipe[0]] where fd >= 0 { close(fd) }
            throw Failure(description: "could not start \(arguments[0]): errno \(status)")
        }
        self.pid = pid
        output = outPipe[0] >= 0 ? FileHandle(fileDescriptor: outPipe[0], closeOnDealloc: true) : nil
        errors = errPipe[0] >= 0 ? FileHandle(fileDescriptor: errPipe[0], closeOnDealloc: true) : nil
    }

    /// `environment` with the test process's buses: `AT_SPI_BUS_ADDRESS` naming
    /// ``TestAccessibilityBus`` unless the child is to have an accessibility bus of its own
    /// (`NO_AT_BRIDGE=0` or `GTK_A11Y=atspi`) or is given one, and `DBUS_SESSION_BUS_ADDRESS`
    /// naming ``TestSessionBus`` unless it is given a session bus (`dbus-run-session` names its own).
    ///
    /// WebKitGTK (both APIs) asks for the accessibility bus even with GTK's bridge off, and looks
    /// first at `AT_SPI_BUS_ADDRESS`, then at the X display's root window, then at the session
    /// bus's `org.a11y.Bus`. A test on a private session bus starts a bus launcher there, which
    /// publishes its address on the shared display's root window and listens at one socket path
    /// per display: every other test's web process on that display then talks to that bus (or to
    /// a later one that replaced its socket), and a registry started on one bus while another owns
    /// the socket never answers. A full run saw a page wait 30 s for that answer.
    static func withTestBuses(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        let wantsBus = environment["NO_AT_BRIDGE"] == "0" || environment["GTK_A11Y"] == "atspi"
        if !wantsBus, environment["AT_SPI_BUS_ADDRESS"] == nil, let address = TestAccessibilityBus.address {
            environment["AT_SPI_BUS_ADDRESS"] = address
        }
        if environment["DBUS_SESSION_BUS_ADDRESS", default: ""].isEmpty, let address = TestSessionBus.address {
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
        }
        return environment
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it.
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        return Self.exitStatus(status)
    }

    /// What the child wrote and how it ended.
    public struct Collected: Sendable {
        public let output: Data
        public let errors: Data
        public let status: Int32
    }

    /// Reads both pipes to their end, then waits for the exit, on threads of their own: never on
    /// Swift's cooperative pool, which has one thread per core (two here), so a blocking read
    /// there would stall every other task of the test process for as long as the child runs.
    ///
    /// A pipe is read until its end, or until ``outputGrace`` after the child ended: a daemon the
    /// child's session bus started (at-spi2-registryd, under `dbus-run-session`) inherits the
    /// pipes and can hold them open for minutes after the child is gone.
    public func collect() async -> Collected {
        let output = output
        let errors = errors
        let errorsRead = ReadResult()
        let child = self
        return await withCheckedContinuation { continuation in
            Thread {
                errorsRead.set(errors.map { child.readUntilEndOrExit($0.fileDescriptor) } ?? Data())
            }.start()
            Thread {
                let read = output.map { child.readUntilEndOrExit($0.fileDescriptor) } ?? Data()
                let errors = errorsRead.wait()
                continuation.resume(returning: Collected(output: read, errors: errors, status: waitForExit()))
            }.start()
        }
    }

    /// How long a pipe is still read after the child ended (what it wrote last is in the pipe
    /// already; only a process it left behind can write more).
    public static let outputGrace: Duration = .seconds(3)

    /// Everything read from `fd` until its end, or until ``outputGrace`` after the child ended.
    private func readUntilEndOrExit(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var endedAt: ContinuousClock.Instant?
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 200)
            if ready < 0, errno != EINTR { return data }
            if ready > 0 {
                let count = read(fd, &buffer, buffer.count)
                if count > 0 {
                    data.append(contentsOf: buffer[0..<count])
                    continue
                }
                if count == 0 || (errno != EINTR && errno != EAGAIN) { return data }  // the end of the pipe
            }
            if endedAt == nil, hasEnded() { endedAt = .now }
            if let endedAt, ContinuousClock.now - endedAt > Self.outputGrace { return data }
        }
    }

    /// One thread's read, handed to another.
    private final class ReadResult: Sendable {
        private let data = Mutex<Data?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func set(_ value: Data) {
            data.withLock { $0 = value }
            done.signal()
        }

        func wait() -> Data {
            done.wait()
            return data.withLock { $0 ?? Data() }
        }
    }

    /// The child's exit status if it has ended (and reaps it), `nil` while it runs.
    public func exitStatusIfEnded() -> Int32? {
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid { return Self.exitStatus(status) }
        return reaped == -1 && errno == ECHILD ? -1 : nil
    }

    /// Whether the child has ended, without reaping it: while it is not reaped its process group
    /// ID cannot be reused, so `kill(-pid, ...)` still reaches only what it started.
    public func hasEnded() -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno == ECHILD }
        return info._sifields._sigchld.si_pid == pid
    }

    private static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
