public import CGLib

/// A C pointer to a GObject instance, as Swift imports it: `UnsafeMutablePointer<SoupServer>` for a
/// type whose C struct is public, `OpaquePointer` for one whose struct is private (`GDesktopAppInfo`,
/// `SoupServerMessage`, `GDBusConnection`), or an untyped `gpointer`.
///
/// It is the type parameter of ``GObjectRef`` and ``GObjectWeakRef``, which give the pointer back
/// in the same type for C calls: `GObjectRef<UnsafeMutablePointer<SoupServer>>`,
/// `GObjectRef<OpaquePointer>`.
public protocol GObjectPointer {
    /// The same address as a `gpointer`.
    var objectAddress: UnsafeMutableRawPointer { get }
    /// The pointer of this type at `address` (a cast, as C's `(SoupServer *) p`).
    init(objectAddress address: UnsafeMutableRawPointer)
}

extension UnsafeMutablePointer: GObjectPointer {
    public var objectAddress: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
    public init(objectAddress address: UnsafeMutableRawPointer) {
        self = address.assumingMemoryBound(to: Pointee.self)
    }
}

extension OpaquePointer: GObjectPointer {
    public var objectAddress: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
    public init(objectAddress address: UnsafeMutableRawPointer) { self.init(address) }
}

extension UnsafeMutableRawPointer: GObjectPointer {
    public var objectAddress: UnsafeMutableRawPointer { self }
    public init(objectAddress address: UnsafeMutableRawPointer) { self = address }
}

extension GObjectPointer {
    /// The instance as a `GObject *` (`G_OBJECT()`), for the `g_object_*` functions.
    public var gObject: UnsafeMutablePointer<GObject> { wvh_object(objectAddress) }
}
