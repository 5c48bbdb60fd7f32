import Foundation

/// Starts a program with an empty signal mask (`posix_spawnp` with `POSIX_SPAWN_SETSIGMASK`).
///
/// Foundation's `Process` spawns from the calling thread, and in a test process that is a
/// Dispatch worker thread, which blocks almost every signal: the child and everything it starts
/// inherit that mask, so `SIGTERM` (dbus-run-session ending its bus) and `SIGALRM` (the test
/// browser's own time limit) never arrive, and such processes outlive the test holding its pipes.
struct CleanSpawn {
    let pid: pid_t
    /// The read ends of the child's standard output and standard error.
    let output: FileHandle
    let errors: FileHandle

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `arguments[0]` (looked up on `PATH`) with `environment`; standard input is /dev/null.
    init(_ arguments: [String], environment: [String: String]) throws {
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw Failure(description: "pipe failed: errno \(errno)")
        }
        // Close-on-exec: other children started later do not inherit these ends (dup2 clears it for this one).
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard status == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw Failure(description: "could not start \(arguments[0]): errno \(status)")
        }
        self.pid = pid
        output = FileHandle(fileDescriptor: outPipe[0], closeOnDealloc: true)
        errors = FileHandle(fileDescriptor: errPipe[0], closeOnDealloc: true)
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it.
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
