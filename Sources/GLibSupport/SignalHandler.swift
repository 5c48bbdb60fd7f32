public import CGLib

/// A Swift closure for a GObject signal, in the C shape of that signal.
///
/// The shape must match the signal's C signature exactly (GLib calls the handler through a
/// plain function pointer): `decide-policy`, `load-failed` and friends return `gboolean`,
/// `create` returns a `GtkWidget *`. Handlers run on the main thread.
///
/// A closure receives each pointer argument as the C pointer type its calls take, stated in the
/// closure's parameter list (any ``GObjectPointer``: `UnsafeMutablePointer<WebKitPolicyDecision>`
/// for a type whose struct is public, `OpaquePointer` for an opaque or boxed one):
///
/// ```swift
/// connections.connect(view, "decide-policy", .decidePolicy { (decision: UnsafeMutablePointer<WebKitPolicyDecision>?, type) in
///     ...
/// })
/// ```
///
/// A closure that does not look at the pointer takes no parameter: `.pointerReturningBool { true }`.
public struct SignalHandler {
    /// The C shape, with the untyped closure GLib's call reaches.
    let shape: SignalShape

    private init(_ shape: SignalShape) { self.shape = shape }

    /// `void (*)(GObject *, gpointer)`: `destroy`, `close`, `show`.
    public static func plain(_ body: @escaping @MainActor () -> Void) -> SignalHandler {
        SignalHandler(.plain(body))
    }

    /// `gboolean (*)(GObject *, gpointer)`: GTK 4's `close-request`.
    public static func returningBool(_ body: @escaping @MainActor () -> Bool) -> SignalHandler {
        SignalHandler(.returningBool(body))
    }

    /// `gboolean (*)(GtkEventControllerKey *, guint keyval, guint keycode, GdkModifierType, gpointer)`:
    /// GTK 4's `key-pressed`.
    public static func keyPressed(_ body: @escaping @MainActor (_ keyval: UInt32, _ modifiers: UInt32) -> Bool) -> SignalHandler {
        SignalHandler(.keyPressed(body))
    }

    /// `void (*)(GObject *, enum, gpointer)`: `load-changed`, `web-process-terminated`.
    public static func enumValue(_ body: @escaping @MainActor (UInt32) -> Void) -> SignalHandler {
        SignalHandler(.enumValue(body))
    }

    /// `void (*)(GObject *, gpointer, gpointer)`: `notify::<property>` (the `GParamSpec *`),
    /// `script-message-received`, `download-started`.
    public static func pointer<Argument: GObjectPointer>(_ body: @escaping @MainActor (Argument?) -> Void) -> SignalHandler {
        SignalHandler(.pointer { body(typed($0)) })
    }

    /// `void (*)(GObject *, gpointer, gpointer)`, the argument unused.
    public static func pointer(_ body: @escaping @MainActor () -> Void) -> SignalHandler {
        SignalHandler(.pointer { _ in body() })
    }

    /// `gboolean (*)(GObject *, gpointer, gpointer)`: `key-press-event`, `delete-event`,
    /// `authenticate`, `permission-request`, `script-dialog`.
    public static func pointerReturningBool<Argument: GObjectPointer>(
        _ body: @escaping @MainActor (Argument?) -> Bool
    ) -> SignalHandler {
        SignalHandler(.pointerReturningBool { body(typed($0)) })
    }

    /// `gboolean (*)(GObject *, gpointer, gpointer)`, the argument unused.
    public static func pointerReturningBool(_ body: @escaping @MainActor () -> Bool) -> SignalHandler {
        SignalHandler(.pointerReturningBool { _ in body() })
    }

    /// `gboolean (*)(GObject *, gpointer, gpointer, gpointer)`: WebKitGTK 6.0's `context-menu`
    /// (the menu, the hit test result), GIO's `incoming` (the connection, the source object).
    public static func twoPointersReturningBool<First: GObjectPointer, Second: GObjectPointer>(
        _ body: @escaping @MainActor (First?, Second?) -> Bool
    ) -> SignalHandler {
        SignalHandler(.twoPointersReturningBool { body(typed($0), typed($1)) })
    }

    /// `gboolean (*)(GObject *, gpointer, gpointer, gpointer, gpointer)`: WebKitGTK 4.1's
    /// `context-menu` (the menu, the `GdkEvent`, the hit test result).
    public static func threePointersReturningBool<First: GObjectPointer, Second: GObjectPointer, Third: GObjectPointer>(
        _ body: @escaping @MainActor (First?, Second?, Third?) -> Bool
    ) -> SignalHandler {
        SignalHandler(.threePointersReturningBool { body(typed($0), typed($1), typed($2)) })
    }

    /// `gboolean (*)(GObject *, gpointer decision, enum type, gpointer)`: `decide-policy`.
    public static func decidePolicy<Decision: GObjectPointer>(
        _ body: @escaping @MainActor (_ decision: Decision?, _ type: UInt32) -> Bool
    ) -> SignalHandler {
        SignalHandler(.decidePolicy { body(typed($0), $1) })
    }

    /// `gboolean (*)(GObject *, enum event, const gchar *uri, GError *, gpointer)`: `load-failed`.
    public static func loadFailed(
        _ body: @escaping @MainActor (_ event: UInt32, _ uri: String, _ error: GLibError?) -> Bool
    ) -> SignalHandler {
        SignalHandler(.loadFailed(body))
    }

    /// `gboolean (*)(GObject *, const gchar *uri, GTlsCertificate *, GTlsCertificateFlags, gpointer)`:
    /// `load-failed-with-tls-errors`.
    public static func loadFailedWithTLSErrors(
        _ body: @escaping @MainActor (_ uri: String, _ certificate: UnsafeMutablePointer<GTlsCertificate>?, _ errors: UInt32) -> Bool
    ) -> SignalHandler {
        SignalHandler(.loadFailedWithTLSErrors { body($0, typed($1), $2) })
    }

    /// `GtkWidget *(*)(GObject *, gpointer action, gpointer)`: `create`.
    public static func create<Action: GObjectPointer, Widget: GObjectPointer>(
        _ body: @escaping @MainActor (_ action: Action?) -> Widget?
    ) -> SignalHandler {
        SignalHandler(.create { body(typed($0))?.objectAddress })
    }

    /// `void (*)(GApplication *, GFile **files, gint n_files, gchar *hint, gpointer)`: `GApplication::open`.
    /// The files arrive as their URIs (`g_file_get_uri`), in order.
    public static func open(_ body: @escaping @MainActor (_ uris: [String], _ hint: String) -> Void) -> SignalHandler {
        SignalHandler(.open(body))
    }

    /// Connects `handler` to `signal` on `instance` for the instance's whole life: GLib releases
    /// the handler when the instance is finalized. For a guard that must outlive its owner's
    /// ``SignalConnections`` (an object that may still emit after the owner is done); everything
    /// else goes through ``SignalConnections``, which removes its handlers when its owner says so.
    @MainActor
    public static func connectForLifetime(_ handler: SignalHandler, to signal: String, on instance: some GObjectPointer) {
        _ = connect(handler, to: signal, on: instance.objectAddress)
    }

    /// Connects `handler` to `signal` on `instance`. GLib holds the handler's shape retained
    /// (``UserData``) and releases it in its destroy notifier (`g_signal_connect_data`); returns the
    /// handler id.
    @MainActor
    static func connect(_ handler: SignalHandler, to signal: String, on instance: UnsafeMutableRawPointer) -> gulong {
        g_signal_connect_data(
            instance, signal, handler.shape.thunk, UserData.retained(handler.shape), UserData<SignalShape>.closureNotify,
            GConnectFlags(rawValue: 0))
    }
}

/// A signal's pointer argument as the type the handler's closure names.
private func typed<Pointer: GObjectPointer>(_ address: UnsafeMutableRawPointer?) -> Pointer? {
    address.map(Pointer.init(objectAddress:))
}
