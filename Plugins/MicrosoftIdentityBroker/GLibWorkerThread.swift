import CGLib
import Foundation
import GLibSupport

/// One thread running a GLib main loop on a main context of its own, where every D-Bus call of
/// this module starts and every reply and signal arrives: the module works the same whether or
/// not the app runs a GLib main loop, and never touches the app's main thread.
final class GLibWorkerThread: @unchecked Sendable {
    /// Shared by every broker of the process; it runs as long as the process.
    static let shared = GLibWorkerThread()

    /// The `GMainContext`, thread-default on the worker thread. Immutable after `init`.
    private let context: OpaquePointer

    private init() {
        context = g_main_context_new()
        // Crossing to the thread as addresses: GLib pointers are not Sendable, this one is owned by it.
        let contextAddress = UInt(bitPattern: context)
        let loopAddress = UInt(bitPattern: g_main_loop_new(context, 0))
        let thread = Thread {
            g_main_context_push_thread_default(OpaquePointer(bitPattern: contextAddress))
            g_main_loop_run(OpaquePointer(bitPattern: loopAddress))
        }
        thread.name = "MicrosoftIdentityBroker D-Bus"
        thread.start()
    }

    /// Runs `body` on the worker thread (`g_main_context_invoke_full`), soon, in order.
    func perform(_ body: @escaping @Sendable () -> Void) {
        g_main_context_invoke_full(
            context, G_PRIORITY_DEFAULT,
            { data in
                UserData<@Sendable () -> Void>.borrow(data)()
                return 0  // G_SOURCE_REMOVE
            }, UserData.retained(body), UserData<@Sendable () -> Void>.destroyNotify)
    }
}
