import CGLib

/// Runs `body` on the main thread once GLib's main loop has nothing more urgent to do
/// (`G_PRIORITY_DEFAULT_IDLE`): after the events and the main-actor work already waiting, such as
/// a caller that was just resumed. For teardown that nobody should wait for.
@MainActor
public func whenIdle(_ body: @escaping @MainActor () -> Void) {
    SourceCallback.addIdle {
        body()
        return false
    }
}
