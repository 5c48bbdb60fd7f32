public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The stacks of every thread of a hung program, read with a deadline and shortened for a test
/// failure: what a developer needs to see where a scenario stopped, in the message CI shows. Read
/// by elfutils' `eu-stack` (a fraction of a second: it unwinds from the loaded modules' tables),
/// else by gdb (`thread apply all bt`), which loads every library's symbols first: seconds on an
/// idle machine, over 30 s on two cores beside a full test run.
public enum ThreadStacks {
    /// How long gdb may take to attach and print (scaled): about 2 s on two busy cores, and over
    /// 8 s with a load average of 20 (two CPU hogs, builds and the suite beside it).
    public static var deadline: Duration { Patience.scaled(.seconds(30)) }

    /// The stacks of process `pid`, shortened (``shortened(_:)``), or a sentence saying why there
    /// are none (no tool, not allowed to attach, past its deadline). Blocks the calling thread
    /// until the tool has ended: call it where blocking is allowed (a watchdog about to exit, a
    /// thread of its own), never on Swift's cooperative pool.
    public static func read(pid: pid_t) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-stacks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        if let stacks = readWithEuStack(pid: pid, in: folder) { return stacks }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let output = folder.appendingPathComponent("stdout").path, errors = folder.appendingPathComponent("stderr").path
            let seconds = max(1, deadline.components.seconds)
            // `timeout` ends gdb at its deadline (and kills it 2 s later if it is still there).
            let gdb = try CleanSpawn(
                [
                    "timeout", "-k", "2", String(seconds), "gdb", "-p", String(pid), "-batch", "-nx",
                    "-iex", "set debuginfod enabled off", "-iex", "set auto-load off",
                    "-ex", "thread apply all bt -frame-arguments none",
                ],
                environment: ProcessInfo.processInfo.environment, outputFiles: (output, errors))
            let status = gdb.waitForExit()
            let text = demangled(output, in: folder) ?? (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let stacks = shortened(text)
            if !stacks.isEmpty { return stacks }
            let log = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { !$0.hasPrefix("During symbol reading") && !$0.hasPrefix("warning: Section") }
                .suffix(5).joined(separator: "\n")
            switch status {
            case 124, 137: return "(no stacks: gdb took longer than \(seconds) s)\n\(log)"
            case 127: return "(no stacks: gdb is not installed)"
            default: return "(no stacks: gdb ended with status \(status))\n\(log)"
            }
        } catch {
            return "(no stacks: \(error))"
        }
    }

    /// The stacks by `eu-stack -m -s` (module and source line of each frame), put in gdb's shape
    /// (``gdbStyle(euStack:pid:)``) and shortened; `nil` when eu-stack is missing or printed no
    /// stack (then gdb tries).
    private static func readWithEuStack(pid: pid_t, in folder: URL) -> String? {
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return nil }
        let output = folder.appendingPathComponent("eu-stack").path
        let seconds = max(1, deadline.components.seconds)
        guard let tool = try? CleanSpawn(
            ["timeout", "-k", "2", String(seconds), "eu-stack", "-m", "-s", "-p", String(pid)],
            environment: ProcessInfo.processInfo.environment, outputFiles: (output, "/dev/null"))
        else { return nil }
        _ = tool.waitForExit()  // a thread it cannot unwind makes it exit 1 after printing the others
        let text = demangled(output, in: folder) ?? (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let stacks = shortened(gdbStyle(euStack: text, pid: pid))
        return stacks.isEmpty ? nil : stacks
    }

    /// eu-stack's `TID 12:` / `#0  0x7f… name - /path/lib.so` / `    file.c:29:7` as gdb prints
    /// threads and frames (`Thread 1 (LWP 12) "comm":`, `#0  0x7f… in name () at file.c:29`), the
    /// main thread (TID = PID) numbered 1 and the others 2, 3… in TID order, named from /proc.
    public static func gdbStyle(euStack text: String, pid: pid_t) -> String {
        struct Frame { var number: String, address: String, name: String, module: String, source: String? }
        var threads: [(tid: Int32, frames: [Frame])] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("TID "), let tid = Int32(line.dropFirst(4).prefix { $0.isNumber }) {
                threads.append((tid, []))
            } else if line.hasPrefix("#"), !threads.isEmpty {
                let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
                guard fields.count >= 2 else { continue }
                var name = fields.count > 2 ? String(fields[2]) : "??"
                var module = ""
                if let dash = name.range(of: " - /", options: .backwards) {
                    module = String(name[name.index(after: dash.lowerBound)...].dropFirst(2))
                    name = String(name[..<dash.lowerBound])
                } else if name.hasPrefix("- /") {
                    module = String(name.dropFirst(2))
                    name = "??"
                }
                threads[threads.count - 1].frames.append(Frame(number: String(fields[0]), address: String(fields[1]), name: name, module: module, source: nil))
            } else if line.hasPrefix("    "), !threads.isEmpty, !threads[threads.count - 1].frames.isEmpty {
                let source = line.trimmingCharacters(in: .whitespaces)
                // file.c:29:7 → file.c:29
                let parts = source.split(separator: ":")
                threads[threads.count - 1].frames[threads[threads.count - 1].frames.count - 1].source =
                    parts.count >= 3 ? parts.dropLast().joined(separator: ":") : source
            }
        }
        let ordered = threads.sorted { ($0.tid == pid ? 0 : 1, $0.tid) < ($1.tid == pid ? 0 : 1, $1.tid) }
        var lines: [String] = []
        for (index, thread) in ordered.enumerated() {
            let comm = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(thread.tid)/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            lines.append("Thread \(index + 1) (LWP \(thread.tid)) \"\(comm)\":")
            for frame in thread.frames {
                let place = frame.source.map { " at \($0)" } ?? (frame.module.isEmpty ? "" : " from \(frame.module)")
                lines.append("\(frame.number)  \(frame.address) in \(frame.name) ()\(place)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The file at `path` with Swift's symbols readable (`swift-demangle --simplified`, from the
    /// toolchain), `nil` without the tool.
    private static func demangled(_ path: String, in folder: URL) -> String? {
        let output = folder.appendingPathComponent("demangled").path
        guard let tool = try? CleanSpawn(
            ["sh", "-c", #"exec swift-demangle --simplified < "$1""#, "sh", path],
            environment: ProcessInfo.processInfo.environment, outputFiles: (output, "/dev/null")),
            tool.waitForExit() == 0
        else { return nil }
        return try? String(contentsOfFile: output, encoding: .utf8)
    }

    /// ``read(pid:)`` on a thread of its own.
    public static func read(pid: pid_t) async -> String {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: read(pid: pid)) }.start()
        }
    }

    /// The processes running `executable` (a path) among `root` and its descendants: the program a
    /// launcher (`dbus-run-session --`) started, or `root` itself.
    public static func processes(running executable: String, under root: pid_t) -> [pid_t] {
        let target = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
        var children: [pid_t: [pid_t]] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // After the command's name (in parentheses, and it may hold spaces): state, then the parent.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { children[parent, default: []].append(pid) }
        }
        var found: [pid_t] = []
        var queue = [root]
        while let pid = queue.popLast() {
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
            if exe == target { found.append(pid) }
            queue += children[pid] ?? []
        }
        return found.sorted()
    }

    /// gdb's `thread apply all bt` made short: one line per frame (the function, then its source
    /// line or library), threads with the same frames written once ("Threads 4, 5"), the main
    /// thread first, at most `framesPerThread` frames each (the innermost). Empty when `text`
    /// holds no stack.
    public static func shortened(_ text: String, framesPerThread: Int = 24) -> String {
        struct Stack {
            var numbers: [Int]
            var name: String
            var frames: [String]
        }
        var stacks: [Stack] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if line.hasPrefix("Thread "), let number = Int(line.dropFirst(7).prefix { $0.isNumber }) {
                // Thread 20 (Thread 0x7f0d00ff36c0 (LWP 17237) "ReceiveQueue"):
                let name = line.split(separator: "\"").dropFirst().first.map { "\"\($0)\"" } ?? ""
                stacks.append(Stack(numbers: [number], name: name, frames: []))
            } else if line.hasPrefix("#"), !stacks.isEmpty {
                stacks[stacks.count - 1].frames.append(frame(line))
            }
        }
        // Threads that wait in the same place (a pool's workers) once, with all their numbers.
        var merged: [Stack] = []
        for stack in stacks.sorted(by: { $0.numbers[0] < $1.numbers[0] }) {
            if let same = merged.firstIndex(where: { $0.frames == stack.frames && $0.name == stack.name }) {
                merged[same].numbers += stack.numbers
            } else {
                merged.append(stack)
            }
        }
        return merged.map { stack in
            let numbers = stack.numbers.map(String.init).joined(separator: ", ")
            let title = "\(stack.numbers.count > 1 ? "Threads" : "Thread") \(numbers)\(stack.name.isEmpty ? "" : " \(stack.name)"):"
            let more = stack.frames.count > framesPerThread ? ["  … \(stack.frames.count - framesPerThread) outer frames"] : []
            return ([title] + stack.frames.prefix(framesPerThread).map { "  " + $0 } + more).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `#3  0x00007f0d73939931 in WTF::RunLoop::run() () from /lib/x86_64-linux-gnu/libjavascriptcoregtk-4.1.so.0`
    /// as `#3 WTF::RunLoop::run() (libjavascriptcoregtk-4.1.so.0)`.
    private static func frame(_ line: String) -> String {
        var rest = Substring(line)
        let number = rest.prefix { !$0.isWhitespace }
        rest = rest.dropFirst(number.count).drop { $0.isWhitespace }
        if rest.hasPrefix("0x"), let range = rest.range(of: " in ") { rest = rest[range.upperBound...] }
        var place = ""
        if let range = rest.range(of: " from ", options: .backwards) {
            place = String(rest[range.upperBound...].split(separator: "/").last ?? "")
            rest = rest[..<range.lowerBound]
        } else if let range = rest.range(of: " at ", options: .backwards) {
            place = String(rest[range.upperBound...].split(separator: "/").last ?? "")
            rest = rest[..<range.lowerBound]
        }
        // The argument list gdb adds after the name: " ()" or " (fds=..., nfds=...)".
        if let range = rest.range(of: #" \((?:[A-Za-z_][A-Za-z0-9_.]*=\.\.\.(?:, )?)*\)$"#, options: .regularExpression) {
            rest = rest[..<range.lowerBound]
        }
        return "\(number) \(rest)\(place.isEmpty ? "" : " (\(place))")"
    }

    /// Lets any process of this user attach a debugger to this one (`prctl(PR_SET_PTRACER,
    /// PR_SET_PTRACER_ANY)`): under Yama's `ptrace_scope` 1 (Ubuntu's default) only an ancestor
    /// may, and neither the gdb this process starts nor the one the test runner starts is one.
    /// `prctl` is variadic, which Swift does not import: called through `dlsym` with its five
    /// integer arguments (the variadic and the plain calling conventions agree for integers).
    public static func allowDebuggers() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "prctl") else { return }
        let prctl = unsafeBitCast(symbol, to: Prctl.self)
        let setPtracer: Int32 = 0x5961_6d61  // PR_SET_PTRACER, <linux/prctl.h>
        _ = prctl(setPtracer, UInt.max, 0, 0, 0)  // PR_SET_PTRACER_ANY: (unsigned long)-1
    }
}
