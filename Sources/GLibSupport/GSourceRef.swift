public import CGLib

/// One reference to a `GSource` its owner attached and will stop: when this value goes (or at
/// ``destroy()``), the source is removed from its main context (`g_source_destroy`, so its callback
/// never runs again and its destroy notifier releases the closure) and unreffed, exactly once.
///
/// ```swift
/// let source = GSourceRef(adopting: g_timeout_source_new(500))
/// g_source_set_callback(source.pointer, SourceCallback.function,
///                       SourceCallback.userData { print("tick"); return true }, SourceCallback.destroyNotify)
/// source.attach()
/// // ... later, or when `source` goes:
/// source.destroy()
/// ```
/// Main thread only for sources on the default main context (the owner's thread in general).
public final class GSourceRef {
    /// The source, for C calls. Valid as long as this value lives.
    public let pointer: UnsafeMutablePointer<GSource>
    private var destroyed = false

    /// Adopts the reference a `*_source_new()` function returned ("transfer full").
    public init(adopting pointer: UnsafeMutablePointer<GSource>) {
        self.pointer = pointer
    }

    deinit {
        destroy()
        g_source_unref(pointer)
    }

    /// Attaches the source to `context` (`nil`: the default main context); returns its id.
    @discardableResult
    public func attach(to context: OpaquePointer? = nil) -> guint {
        g_source_attach(pointer, context)
    }

    /// Removes the source from its context now (`g_source_destroy`). Calling it again does nothing.
    public func destroy() {
        guard !destroyed else { return }
        destroyed = true
        g_source_destroy(pointer)
    }
}
