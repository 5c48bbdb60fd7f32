public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started the way a sign-in user agent must be, and ended reliably: the
/// supported way for provider authors (and this module) to run helper programs.
///
/// - Started with `posix_spawnp` with an **empty signal mask** and default signal dispositions
///   (`POSIX_SPAWN_SETSIGMASK`, `POSIX_SPAWN_SETSIGDEF`): a thread of a Swift app, a Dispatch
///   worker above all, blocks most signals and may ignore `SIGPIPE`, and a child inherits both,
///   so it would never see `SIGTERM`. Foundation's `Process` does not reset them.
/// - In a **process group of its own** (`POSIX_SPAWN_SETPGROUP`), so ending it ends what it
///   started too (a browser, a helper), and a Ctrl-C meant for the app's terminal does not.
/// - With only standard input, output and error open (everything else is closed in the child).
/// - Ended **once** and reaped **once** by ``end(grace:then:)``: however many times and from
///   however many threads it is called, the group is killed at most once and `waitpid` runs once,
///   so no zombie stays and no recycled process ID is ever signalled.
///
/// Releasing the last reference without calling ``end(grace:then:)`` ends it with no grace.
///
/// Why not GIO's `GSubprocess` (checked against GLib 2.74.6, the version this project builds
/// with, with a C program that blocks every signal and ignores `SIGUSR1` before spawning):
/// - A plain `GSubprocessLauncher` child inherited the blocked mask (`SigBlk: fffffffe7ffbfeff` in
///   its `/proc/self/status`), kept `SIGUSR1` ignored, and stayed in the parent's process group.
///   Both are fixable only with `g_subprocess_launcher_set_child_setup` and a C function
///   (`sigprocmask`, `signal(…, SIG_DFL)`, `setpgid`), which forces `fork` in this
///   multi-threaded process instead of `posix_spawn`.
/// - `GSubprocess` reaps its child itself, in GLib's worker thread, the moment it exits: 300 ms
///   after a `true` child ended, with no main loop running, its identifier was already gone.
///   Ending what the child started means signalling its process group (`kill(-pid)`) after the
///   child may have exited; once GLib has reaped it, that group ID can be recycled, so the
///   signal could reach someone else's processes. Here the leader stays unreaped until the group
///   was signalled (``end(grace:then:)``), which `GSubprocess` cannot express
///   (`g_subprocess_send_signal` signals the leader only).
/// - Its exit is reported through `g_subprocess_wait_async` in a GLib main context, which the
///   external provider does not require today (see `OutputReader`); the pidfd does not need one.
public final class ChildProcess: Sendable {
    /// What a child's standard stream is connected to.
    public enum Stream: Sendable {
        /// The parent's own stream.
        case inherit
        /// `/dev/null`.
        case null
        /// A new pipe; the parent's end is in ``standardInput`` / ``standardOutput``.
        case pipe
    }

    /// How a child ended.
    public enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// Why a child could not start.
    public struct SpawnError: Error, Sendable, CustomStringConvertible {
        public let program: String
        /// The `errno` value `posix_spawnp` or `pipe` returned.
        public let errno: Int32
        public var description: String {
            "could not start \(program): \(String(cString: strerror(errno)))"
        }
    }

    /// The process ID; also the ID of the child's process group.
    public let pid: pid_t
    /// The write end of the child's standard input (close-on-exec, blocking), for `.pipe`.
    /// The caller owns it and closes it (``end(grace:then:)`` does not).
    public let standardInput: Int32?
    /// The read end of the child's standard output (close-on-exec, blocking), for `.pipe`.
    /// The caller owns it and closes it.
    public let standardOutput: Int32?

    private let ended = Mutex(false)
    private let reaped = ReapedStatus()

    /// Starts `arguments[0]` (looked up on `PATH` when it has no `/`).
    ///
    /// - Parameters:
    ///   - environment: the child's environment; `nil` passes this process's.
    /// - Throws: ``SpawnError`` when the pipes cannot be made or the program cannot be started
    ///   (not found, not executable).
    public init(
        _ arguments: [String], environment: [String: String]? = nil,
        standardInput inputMode: Stream = .null, standardOutput outputMode: Stream = .null,
        standardError errorMode: Stream = .inherit
    ) throws(SpawnError) {
        precondition(!arguments.isEmpty, "ChildProcess needs a program to run")
        let program = arguments[0]
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        if inputMode == .pipe, GNU.pipeCloseOnExec(&inputPipe) != 0 {
            throw SpawnError(program: program, errno: errno)
        }
        if outputMode == .pipe, GNU.pipeCloseOnExec(&outputPipe) != 0 {
            let error = errno
            for fd in inputPipe where fd >= 0 { close(fd) }
            throw SpawnError(program: program, errno: error)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch inputMode {
        case .inherit: break
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe: posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        }
        switch outputMode {
        case .inherit: break
        case .null: posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        case .pipe: posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        }
        switch errorMode {
        case .inherit, .pipe: break  // standard error is never captured: it is the plugin's log
        case .null: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // Nothing but 0, 1 and 2 reaches the child, whatever this process opened without O_CLOEXEC.
        GNU.addCloseFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status: Int32
        if let environment {
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in envp { free(pointer) } }
            status = posix_spawnp(&child, program, &actions, &attributes, argv, envp)
        } else {
            status = posix_spawnp(&child, program, &actions, &attributes, argv, environ)
        }
        // The child's ends: ours to close whether or not it started.
        for fd in [inputPipe[0], outputPipe[1]] where fd >= 0 { close(fd) }
        guard status == 0 else {
            for fd in [inputPipe[1], outputPipe[0]] where fd >= 0 { close(fd) }
            throw SpawnError(program: program, errno: status)
        }
        pid = child
        standardInput = inputPipe[1] >= 0 ? inputPipe[1] : nil
        standardOutput = outputPipe[0] >= 0 ? outputPipe[0] : nil
    }

    deinit {
        if !ended.withLock({ $0 }) { Self.reap(pid: pid, grace: .zero, reaped: reaped, then: nil) }
    }

    /// How the child ended, once ``end(grace:then:)`` has reaped it; `nil` before.
    public var exitStatus: ExitStatus? { reaped.value.withLock { $0 } }

    /// Whether the child (the group's leader) has exited, without reaping it.
    /// - Returns: its status, or `nil` while it runs.
    public func exitStatusIfExited() -> ExitStatus? {
        if let status = exitStatus { return status }
        return Self.peek(pid: pid)
    }

    /// A descriptor that becomes readable when the child exits (`pidfd_open`, Linux 5.3 and
    /// glibc 2.36), close-on-exec; the caller closes it. It names this process, not its ID, so
    /// it cannot mistake a recycled ID for the child. `nil` where the system has no `pidfd_open`.
    ///
    /// The kernel says when the child ended, whoever else still holds its output: a program it
    /// started in the background can keep the pipe open for minutes.
    func exitDescriptor() -> Int32? {
        guard let open = GNU.pidfdOpen else { return nil }
        // Still ours: the child is reaped only by end(grace:then:), so the ID names it.
        let fd = open(pid, 0)
        return fd >= 0 ? fd : nil
    }

    /// Ends the child and everything in its process group, once; later calls do nothing.
    ///
    /// Off the calling thread: waits up to `grace` for the child to exit by itself (close its
    /// standard input or send it your protocol's "stop" before calling this), then sends
    /// `SIGKILL` to the whole process group, then reaps the child and calls `then` with how it
    /// ended (on a private queue). Never blocks the caller.
    public func end(grace: Duration = .seconds(1), then: (@Sendable (ExitStatus) -> Void)? = nil) {
        let first = ended.withLock { ended in
            defer { ended = true }
            return !ended
        }
        guard first else { return }
        Self.reap(pid: pid, grace: grace, reaped: reaped, then: then)
    }

    /// Every child is reaped on one serial queue: one thread at most, however many sessions end.
    /// The grace is waited out with timers on it, never by blocking it, so one child's grace does
    /// not delay another's end.
    private static let reaper = DispatchQueue(label: "WebviewHost.ChildProcess.reaper")

    private static func reap(pid: pid_t, grace: Duration, reaped: ReapedStatus, then: (@Sendable (ExitStatus) -> Void)?) {
        let deadline = DispatchTime.now() + .nanoseconds(Int(grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000))
        @Sendable func check() {
            if peek(pid: pid) == nil, DispatchTime.now() < deadline {
                reaper.asyncAfter(deadline: min(deadline, .now() + .milliseconds(5)), execute: check)
                return
            }
            // The leader is still ours (exited or not, it is not reaped), so the group ID cannot
            // have been recycled: signalling it reaches only what the child started.
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            let signal = status & 0x7f
            let exit: ExitStatus = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            reaped.value.withLock { $0 = exit }
            then?(exit)
        }
        reaper.async(execute: check)
    }

    private static func peek(pid: pid_t) -> ExitStatus? {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return nil }
        let child = info._sifields._sigchld
        guard child.si_pid == pid else { return nil }
        return info.si_code == Int32(CLD_EXITED) ? .exited(child.si_status) : .signaled(child.si_status)
    }
}

/// The GNU functions Swift's Glibc module does not import (it is built without
/// `_GNU_SOURCE`), found at run time: `pipe2` (glibc 2.9),
/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), with POSIX fallbacks, and
/// `pidfd_open` (glibc 2.36).
private enum GNU {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32

    static let pipe2: Pipe2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2")
        .map { unsafeBitCast($0, to: Pipe2.self) }
    static let addclosefrom: AddCloseFrom? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"
    ).map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// `pidfd_open` (glibc 2.36; its descriptors are always close-on-exec).
    static let pidfdOpen: PidfdOpen? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open")
        .map { unsafeBitCast($0, to: PidfdOpen.self) }

    /// `pipe2(fds, O_CLOEXEC)`: no other thread's child can inherit the ends. Without it,
    /// `pipe` then `FD_CLOEXEC`, which leaves a short window.
    static func pipeCloseOnExec(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
        if let pipe2 { return pipe2(fds, O_CLOEXEC) }
        guard pipe(fds) == 0 else { return -1 }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return 0
    }

    /// Closes every descriptor from `lowest` in the child; without glibc 2.34 only close-on-exec ones close.
    static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) {
        _ = addclosefrom?(actions, lowest)
    }
}

/// How a child ended, shared with the reaper queue (which may outlive the ``ChildProcess``).
private final class ReapedStatus: Sendable {
    let value = Mutex<ChildProcess.ExitStatus?>(nil)
}
