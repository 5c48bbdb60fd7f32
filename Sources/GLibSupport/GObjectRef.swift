public import CGLib

/// One strong reference to a GObject, released exactly once when this value goes.
///
/// Keep one of these instead of a raw pointer for every object you own: it takes its reference
/// when made (``init(retaining:)``), or adopts one a C function returned to you
/// (``init(adopting:)``, for "transfer full" results such as `g_socket_service_new()`), or sinks a
/// floating one (``init(sinking:)``), and calls `g_object_unref` once in `deinit`. ``pointer``
/// gives the object back in the type C calls want, so no call site casts.
///
/// ```swift
/// let server = GObjectRef(adopting: wvh_soup_server_new()!)   // GObjectRef<UnsafeMutablePointer<SoupServer>>
/// soup_server_add_handler(server.pointer, nil, ...)
/// let message = GObjectRef(retaining: OpaquePointer(rawMessage)) // an opaque type: GObjectRef<OpaquePointer>
/// // both unreffed when the last Swift reference goes
/// ```
///
/// Why a final class and not a `~Copyable` struct: owners share these with closures (signal
/// handlers, async callbacks) and keep them in optionals and dictionaries, which a move-only type
/// makes awkward at every use; one small allocation per object kept costs nothing next to the
/// GObject itself. Reference counting is thread-safe in GObject, but the last `unref` runs the
/// object's finalizer on the thread that drops the last Swift reference: release a toolkit object
/// (a window, a view) on the main thread. Not `Sendable` for the same reason.
public final class GObjectRef<Pointer: GObjectPointer> {
    /// The object, for C calls. Valid as long as this value lives.
    public let pointer: Pointer

    /// Takes a new reference to `pointer` (`g_object_ref`); for a pointer you were lent
    /// ("transfer none"), such as a signal argument or a getter's result.
    public init(retaining pointer: Pointer) {
        g_object_ref(pointer.objectAddress)
        self.pointer = pointer
    }

    /// Adopts the reference the caller owns ("transfer full": a `*_new()` result, `g_weak_ref_get`)
    /// without taking another.
    public init(adopting pointer: Pointer) {
        self.pointer = pointer
    }

    /// Sinks a floating reference, or takes a new one if it is not floating (`g_object_ref_sink`);
    /// for `GInitiallyUnowned` objects (GTK 3 widgets, `GtkAdjustment`...) you keep.
    public init(sinking pointer: Pointer) {
        g_object_ref_sink(pointer.objectAddress)
        self.pointer = pointer
    }

    deinit {
        g_object_unref(pointer.objectAddress)
    }

    /// The object as a `GObject *` (`G_OBJECT()`).
    public var gObject: UnsafeMutablePointer<GObject> { pointer.gObject }

    /// A new full reference for a C function that takes one ("transfer full" parameters); the
    /// receiver releases it.
    public func passRetained() -> Pointer {
        g_object_ref(pointer.objectAddress)
        return pointer
    }
}
