import CGLib

/// GLib work that must stay off the app's main thread, on threads that each own a `GMainContext`
/// pushed as their thread-default: whatever such a call starts (a libsoup session, a libsecret
/// or GDBus call) dispatches its callbacks there, never to the app's main loop, so the work runs
/// the same whether or not anyone runs the app's main loop, and no GLib object crosses threads.
///
/// Two shapes, one rule (each thread owns its context; nothing else iterates it):
/// - **One blocking job** (``run(named:_:)``): a new thread with a fresh main context runs one
///   synchronous call (an HTTP exchange, a libsecret call) and ends with it, popping and
///   releasing its context. A caller that stops waiting (a deadline) leaves the job to finish
///   on its thread, which owns everything it uses; nothing ends it from outside. The `async`
///   form resumes the caller with the job's result.
/// - **A loop for the process** (``init(named:)``, then ``perform(_:)``): one thread runs a main
///   loop on its own context for as long as the process lives (never stopped: asynchronous calls
///   started there, and the signals they subscribe to, stay valid); ``perform(_:)`` queues a
///   closure on it, in order, from any thread (`g_main_context_invoke_full`, thread-safe).
///
/// Threads are GLib's own (`g_thread_new`), named for debuggers (`name` is truncated to 15 bytes
/// by the kernel).
package final class GLibWorkerThread: Sendable {
    /// The thread's `GMainContext`, thread-default there. Immutable; GLib's context functions
    /// used on it from other threads (`g_main_context_invoke_full`, `g_main_context_wakeup`) are
    /// thread-safe.
    private nonisolated(unsafe) let context: OpaquePointer

    /// Starts a thread that runs a main loop on a main context of its own until the process ends.
    package init(named name: String) {
        let context = g_main_context_new()!
        self.context = context
        let loop = UnsafeSendable(g_main_loop_new(context, 0)!)
        // The loop never quits, so the thread's reference to the context is never released.
        Self.start(named: name, context: UnsafeSendable(g_main_context_ref(context)!)) {
            g_main_loop_run(loop.value)
        }
    }

    /// Runs `body` on the loop's thread (`g_main_context_invoke_full`), soon, in the order of
    /// the calls; from any thread.
    package func perform(_ body: @escaping @Sendable () -> Void) {
        g_main_context_invoke_full(
            context, G_PRIORITY_DEFAULT,
            { data in
                UserData<@Sendable () -> Void>.borrow(data)()
                return 0  // G_SOURCE_REMOVE
            }, UserData.retained(body), UserData<@Sendable () -> Void>.destroyNotify)
    }

    /// Runs `body` once on a new thread with a new main context pushed as its thread-default,
    /// then ends the thread. Returns at once.
    package static func run(named name: String, _ body: @escaping @Sendable () -> Void) {
        start(named: name, context: UnsafeSendable(g_main_context_new()!), body)
    }

    /// ``run(named:_:)``, resuming the caller with `body`'s result. Cancelling the calling task
    /// does not stop `body`: give it a `GCancellable` for that.
    package static func run<Result: Sendable>(named name: String, _ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            run(named: name) { continuation.resume(returning: body()) }
        }
    }

    /// A GLib thread that pushes `context` as its thread-default around `body`, then pops and
    /// releases it (the thread holds the only reference it was given).
    private static func start(named name: String, context: UnsafeSendable<OpaquePointer>, _ body: @escaping @Sendable () -> Void) {
        let job: @Sendable () -> Void = {
            g_main_context_push_thread_default(context.value)
            body()
            g_main_context_pop_thread_default(context.value)
            g_main_context_unref(context.value)
        }
        let thread = g_thread_new(
            name,
            { data in
                UserData<@Sendable () -> Void>.take(data)()
                return nil
            }, UserData.retained(job))
        g_thread_unref(thread)  // detached: it ends with its job
    }
}
