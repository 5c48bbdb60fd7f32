import CGLib

/// A weak reference to a GObject (`GWeakRef`): it does not keep the object alive, and answers
/// `nil` once the object is finalized.
///
/// Hold what you only listen to this way (a caller's view, a window you connect to): GTK 4
/// destroys a widget only when its last reference goes, so a strong reference from a listener
/// would hide the end of the object. Thread-safe as `GWeakRef` is; the weak reference is cleared
/// (`g_weak_ref_clear`) exactly once, when this value goes.
///
/// ```swift
/// let view = GObjectWeakRef(viewPointer)          // GObjectWeakRef<UnsafeMutablePointer<WebKitWebView>>
/// if let strong = view.get() {                    // a GObjectRef, or nil once the view is gone
///     webkit_web_view_stop_loading(strong.pointer)
/// }
/// ```
public final class GObjectWeakRef<Pointer: GObjectPointer> {
    private let reference: UnsafeMutablePointer<GWeakRef>

    /// A weak reference to `pointer` (`g_weak_ref_init`); takes no strong reference.
    public init(_ pointer: Pointer) {
        reference = .allocate(capacity: 1)
        reference.initialize(to: GWeakRef())
        g_weak_ref_init(reference, pointer.objectAddress)
    }

    deinit {
        g_weak_ref_clear(reference)
        reference.deinitialize(count: 1)
        reference.deallocate()
    }

    /// A strong reference to the object, or `nil` once it has been finalized (`g_weak_ref_get`).
    public func get() -> GObjectRef<Pointer>? {
        guard let object = g_weak_ref_get(reference) else { return nil }
        return GObjectRef(adopting: Pointer(objectAddress: object))
    }

    /// Whether the object still exists; for a check, not to use it afterwards (use ``get()``).
    public var isAlive: Bool { self.get() != nil }
}
