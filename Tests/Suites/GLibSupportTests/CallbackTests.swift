import CGLib
import GLibSupport
import Testing
import TestTraits

/// In-process, on GLib's default main context iterated by the test on the main thread: each C
/// callback runs its closure the expected number of times and releases it exactly once.
@Suite("C callbacks carrying Swift closures", .desktop)
@MainActor
struct CallbackTests {
    /// What the closures saw; outlives them.
    @MainActor final class Record {
        var calls = 0
        var status: Int32?
        var gotResult = false
    }

    /// Captured by a closure: a weak reference to it turns nil when the closure is released.
    @MainActor final class Probe {
        let record: Record
        init(_ record: Record) { self.record = record }
    }

    /// Iterates the default main context (blocking between events) until `done`, or 10 s.
    private func iterate(until done: () -> Bool) {
        var expired = false
        let deadline = GSourceRef(adopting: g_timeout_source_new(10_000))
        withUnsafeMutablePointer(to: &expired) { flag in
            g_source_set_callback(deadline.pointer, { data in
                data!.assumingMemoryBound(to: Bool.self).pointee = true
                return 0
            }, flag, nil)
            deadline.attach()
            while !done(), !flag.pointee { g_main_context_iteration(nil, 1) }
            deadline.destroy()
        }
        #expect(!expired, "timed out waiting on the main context")
    }

    /// Runs what is ready now on the default main context, without waiting.
    private func drain() {
        while g_main_context_iteration(nil, 0) != 0 {}
    }

    @Test("AsyncReadyCallback: a real GIO async call calls the closure once and releases it once")
    func asyncReady() throws {
        weak var released: Probe?
        let record = Record()
        do {
            let probe = Probe(record)
            released = probe
            let file = GObjectRef(adopting: try #require(g_file_new_for_path("/")))
            g_file_query_info_async(
                file.pointer, "standard::type", G_FILE_QUERY_INFO_NONE, G_PRIORITY_DEFAULT, nil,
                AsyncReadyCallback.function,
                AsyncReadyCallback.userData { source, asyncResult in
                    probe.record.calls += 1
                    var error: UnsafeMutablePointer<GError>?
                    if let info = g_file_query_info_finish(OpaquePointer(source), asyncResult, &error) { g_object_unref(UnsafeMutableRawPointer(info)) }
                    if let error { g_error_free(error) }
                    probe.record.gotResult = asyncResult != nil
                })
        }
        #expect(released != nil, "retained while the call is under way")
        iterate { released == nil }
        drain()
        #expect(record.gotResult)
        #expect(record.calls == 1)
    }

    @Test("SourceCallback.addIdle: runs until it returns false, then the closure is released once")
    func idleSource() {
        weak var released: Probe?
        let record = Record()
        do {
            let probe = Probe(record)
            released = probe
            SourceCallback.addIdle {
                probe.record.calls += 1
                return probe.record.calls < 3
            }
        }
        iterate { released == nil }
        #expect(record.calls == 3)
        #expect(released == nil)
    }

    @Test("whenIdle runs once and releases its closure")
    func whenIdleOnce() {
        weak var released: Probe?
        let record = Record()
        do {
            let probe = Probe(record)
            released = probe
            whenIdle {
                probe.record.calls += 1
            }
        }
        iterate { released == nil }
        drain()
        #expect(record.calls == 1)
    }

    @Test("A timeout removed before it fires never runs, and its closure is released")
    func removedTimeout() {
        weak var released: Probe?
        let record = Record()
        do {
            let probe = Probe(record)
            released = probe
            let id = SourceCallback.addTimeout(.seconds(60)) {
                probe.record.calls += 1
                return false
            }
            #expect(released != nil)
            g_source_remove(id)
        }
        #expect(released == nil)
        #expect(record.calls == 0)
    }

    @Test("GSourceRef: dropping it destroys the source; the closure is released and never runs")
    func sourceReference() {
        weak var released: Probe?
        let record = Record()
        do {
            let probe = Probe(record)
            released = probe
            let source = GSourceRef(adopting: g_timeout_source_new(0))
            g_source_set_callback(
                source.pointer, SourceCallback.function,
                SourceCallback.userData {
                    _ = probe
                    probe.record.calls += 1
                    return false
                }, SourceCallback.destroyNotify)
            source.attach()
        }
        #expect(released == nil)
        drain()
        #expect(record.calls == 0)
    }

    @Test("GSourceRef.timeout: fires once, then its closure is released; the value can be dropped afterwards")
    func ownedTimeout() {
        weak var released: Probe?
        let record = Record()
        var source: GSourceRef?
        do {
            let probe = Probe(record)
            released = probe
            source = GSourceRef.timeout(after: .milliseconds(1)) {
                probe.record.calls += 1
                return false
            }
        }
        iterate { released == nil }
        #expect(record.calls == 1)
        #expect(source != nil, "kept by its owner after it fired")
        source = nil
        drain()
        #expect(record.calls == 1)
    }

    @Test("ChildWatchCallback: reports a real child's exit status once and releases the closure")
    func childWatch() throws {
        weak var released: Probe?
        let record = Record()
        do {
            let probe = Probe(record)
            released = probe
            var pid: GPid = 0
            var argv: [UnsafeMutablePointer<gchar>?] = [g_strdup("sh"), g_strdup("-c"), g_strdup("exit 3"), nil]
            defer { for argument in argv { g_free(argument) } }
            let flags = GSpawnFlags(G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
            _ = try withGError { g_spawn_async(nil, &argv, nil, flags, nil, nil, &pid, $0) }
            ChildWatchCallback.add(pid) { pid, waitStatus in
                probe.record.calls += 1
                probe.record.status = waitStatus
                g_spawn_close_pid(pid)
            }
        }
        iterate { released == nil }
        #expect(record.calls == 1)
        #expect(record.status.map { wvh_wait_exited($0) != 0 && wvh_wait_exit_status($0) == 3 } == true)
    }

    @Test("UserData: take releases once; borrow leaves it retained for the destroy notifier")
    func userData() {
        weak var released: Probe?
        let record = Record()
        let data: gpointer
        do {
            let probe = Probe(record)
            released = probe
            data = UserData.retained(probe)
        }
        #expect(UserData<Probe>.borrow(data) === released)
        #expect(released != nil)
        UserData<Probe>.destroyNotify(data)
        #expect(released == nil)

        do {
            let probe = Probe(record)
            released = probe
            let taken = UserData<Probe>.take(UserData.retained(probe))
            #expect(taken === probe)
        }
        #expect(released == nil)
    }
}
