public import CGLib

/// A `GAsyncReadyCallback` that runs a main-actor closure once, then releases it (over
/// ``UserData``). Pass ``function`` and ``userData(_:)`` as the two last arguments of a GIO
/// `*_async` call started on the main thread (GIO calls back in the thread-default main context
/// of the caller, here the main one).
///
/// ```swift
/// g_app_info_launch_default_for_uri_async(
///     uri, context, cancellable, AsyncReadyCallback.function,
///     AsyncReadyCallback.userData { _, result in
///         var error: UnsafeMutablePointer<GError>?
///         _ = g_app_info_launch_default_for_uri_finish(result, &error)
///     })
/// ```
public enum AsyncReadyCallback {
    /// What runs when the operation ends: its source object and its `GAsyncResult *`.
    public typealias Body = @MainActor (_ source: UnsafeMutablePointer<GObject>?, _ result: OpaquePointer?) -> Void

    /// The C function: takes the closure back from the user data, runs it, releases it.
    public static var function: GAsyncReadyCallback {
        { source, result, data in
            let body = UserData<Body>.take(data)
            MainActor.assumeIsolated { [call = UnsafeSendable((source, result))] in body(call.value.0, call.value.1) }
        }
    }

    /// The user data for ``function``: `body`, retained until its one call.
    public static func userData(_ body: @escaping Body) -> gpointer {
        UserData<Body>.retained(body)
    }
}

/// A `GSourceFunc` that runs a main-actor closure each time the source dispatches, for idle and
/// timeout sources, `g_main_context_invoke_full` and `g_source_set_callback`; the closure is
/// released once, by ``destroyNotify``, when the source is removed. The closure returns whether
/// the source stays (`G_SOURCE_CONTINUE`) or goes (`G_SOURCE_REMOVE`).
///
/// ```swift
/// let id = SourceCallback.addTimeout(.seconds(2)) { print("fired"); return false }
/// g_source_remove(id)   // before it fired: the closure is released, never called
/// ```
public enum SourceCallback {
    /// `true`: call again (`G_SOURCE_CONTINUE`); `false`: remove the source (`G_SOURCE_REMOVE`).
    public typealias Body = @MainActor () -> Bool

    /// The C function: runs the closure (still retained).
    public static var function: GSourceFunc {
        { data in
            let body = UserData<Body>.borrow(data)
            return MainActor.assumeIsolated { body() } ? 1 : 0
        }
    }

    /// The user data for ``function``: `body`, retained until ``destroyNotify`` runs.
    public static func userData(_ body: @escaping Body) -> gpointer {
        UserData<Body>.retained(body)
    }

    /// Releases the closure (pass it as the `GDestroyNotify`).
    public static var destroyNotify: GDestroyNotify { UserData<Body>.destroyNotify }

    /// Adds an idle source on the default main context (`g_idle_add_full`); returns its id
    /// (for `g_source_remove`).
    @MainActor @discardableResult
    public static func addIdle(priority: Int32 = G_PRIORITY_DEFAULT_IDLE, _ body: @escaping Body) -> guint {
        g_idle_add_full(priority, function, userData(body), destroyNotify)
    }

    /// Adds a timeout source on the default main context (`g_timeout_add_full`, millisecond
    /// resolution); returns its id (for `g_source_remove`).
    @MainActor @discardableResult
    public static func addTimeout(_ interval: Duration, priority: Int32 = G_PRIORITY_DEFAULT, _ body: @escaping Body) -> guint {
        let milliseconds = interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000
        return g_timeout_add_full(priority, guint(clamping: max(milliseconds, 0)), function, userData(body), destroyNotify)
    }
}

/// A `GChildWatchFunc` that runs a main-actor closure once, when the child process ends, with its
/// wait status (as `waitpid` gives it); GLib has reaped the child by then. The closure is released
/// by ``destroyNotify`` after that call (or when the watch is removed first).
///
/// ```swift
/// ChildWatchCallback.add(pid) { status in
///     g_spawn_close_pid(pid)
///     print(wvh_wait_exited(status) != 0 ? "exited" : "killed")
/// }
/// ```
public enum ChildWatchCallback {
    public typealias Body = @MainActor (_ pid: GPid, _ waitStatus: Int32) -> Void

    /// The C function: runs the closure (released afterwards by ``destroyNotify``).
    public static var function: GChildWatchFunc {
        { pid, status, data in
            let body = UserData<Body>.borrow(data)
            MainActor.assumeIsolated { body(pid, status) }
        }
    }

    /// The user data for ``function``: `body`, retained until ``destroyNotify`` runs.
    public static func userData(_ body: @escaping Body) -> gpointer {
        UserData<Body>.retained(body)
    }

    /// Releases the closure (pass it as the `GDestroyNotify`).
    public static var destroyNotify: GDestroyNotify { UserData<Body>.destroyNotify }

    /// Watches `pid` on the default main context (`g_child_watch_add_full`); the process must have
    /// been spawned with `G_SPAWN_DO_NOT_REAP_CHILD`. Returns the source id.
    @MainActor @discardableResult
    public static func add(_ pid: GPid, priority: Int32 = G_PRIORITY_DEFAULT, _ body: @escaping Body) -> guint {
        g_child_watch_add_full(priority, pid, function, userData(body), destroyNotify)
    }
}

/// A value handed from a GLib callback to main-actor code on the same (main) thread.
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
