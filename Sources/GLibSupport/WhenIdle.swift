import CGLib

/// Runs `body` on the main thread once GLib's main loop has nothing more urgent to do
/// (`G_PRIORITY_DEFAULT_IDLE`): after the events and the main-actor work already waiting, such as
/// a caller that was just resumed. For teardown that nobody should wait for.
@MainActor
public func whenIdle(_ body: @escaping @MainActor () -> Void) {
    final class Box {
        let body: @MainActor () -> Void
        init(_ body: @escaping @MainActor () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    g_idle_add_full(
        G_PRIORITY_DEFAULT_IDLE,
        { data in
            guard let data else { return 0 }
            MainActor.assumeIsolated { Unmanaged<Box>.fromOpaque(data).takeUnretainedValue().body() }
            return 0  // G_SOURCE_REMOVE
        }, box,
        { data in
            if let data { Unmanaged<AnyObject>.fromOpaque(data).release() }
        })
}
