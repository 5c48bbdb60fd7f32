import CGLib

/// The C shapes of the signals ``SignalHandler`` connects to, each with the C function GLib calls
/// (``thunk``) and the Swift closure it calls, which receives pointer arguments untyped: the typed
/// forms callers use are ``SignalHandler``'s. Internal to GLibSupport.
///
/// The shape must match the signal's C signature exactly (GLib calls the handler through a
/// plain function pointer): `decide-policy`, `load-failed` and friends return `gboolean`,
/// `create` returns a `GtkWidget *`. Handlers run on the main thread.
enum SignalShape {
    /// `void (*)(GObject *, gpointer)`: `destroy`, `close`, `show`.
    case plain(@MainActor () -> Void)
    /// `gboolean (*)(GObject *, gpointer)`: GTK 4's `close-request`.
    case returningBool(@MainActor () -> Bool)
    /// `gboolean (*)(GtkEventControllerKey *, guint keyval, guint keycode, GdkModifierType, gpointer)`:
    /// GTK 4's `key-pressed`.
    case keyPressed(@MainActor (_ keyval: UInt32, _ modifiers: UInt32) -> Bool)
    /// `void (*)(GObject *, enum, gpointer)`: `load-changed`, `web-process-terminated`.
    case enumValue(@MainActor (UInt32) -> Void)
    /// `void (*)(GObject *, gpointer, gpointer)`: `notify::<property>` (the `GParamSpec *`).
    case pointer(@MainActor (UnsafeMutableRawPointer?) -> Void)
    /// `gboolean (*)(GObject *, gpointer, gpointer)`: `key-press-event`, `delete-event`, `authenticate`.
    case pointerReturningBool(@MainActor (UnsafeMutableRawPointer?) -> Bool)
    /// `gboolean (*)(GObject *, gpointer, gpointer, gpointer)`: WebKitGTK 6.0's `context-menu`
    /// (the menu, the hit test result).
    case twoPointersReturningBool(@MainActor (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Bool)
    /// `gboolean (*)(GObject *, gpointer, gpointer, gpointer, gpointer)`: WebKitGTK 4.1's
    /// `context-menu` (the menu, the `GdkEvent`, the hit test result).
    case threePointersReturningBool(
        @MainActor (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Bool)
    /// `gboolean (*)(GObject *, gpointer decision, enum type, gpointer)`: `decide-policy`.
    case decidePolicy(@MainActor (_ decision: UnsafeMutableRawPointer?, _ type: UInt32) -> Bool)
    /// `gboolean (*)(GObject *, enum event, const gchar *uri, GError *, gpointer)`: `load-failed`.
    case loadFailed(@MainActor (_ event: UInt32, _ uri: String, _ error: GLibError?) -> Bool)
    /// `gboolean (*)(GObject *, const gchar *uri, GTlsCertificate *, GTlsCertificateFlags, gpointer)`:
    /// `load-failed-with-tls-errors`.
    case loadFailedWithTLSErrors(
        @MainActor (_ uri: String, _ certificate: UnsafeMutableRawPointer?, _ errors: UInt32) -> Bool)
    /// `GtkWidget *(*)(GObject *, gpointer action, gpointer)`: `create`.
    case create(@MainActor (_ action: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?)
    /// `void (*)(GApplication *, GFile **files, gint n_files, gchar *hint, gpointer)`: `GApplication::open`.
    /// The files arrive as their URIs (`g_file_get_uri`), in order.
    case open(@MainActor (_ uris: [String], _ hint: String) -> Void)

    /// The C function GLib calls; it finds this handler again through the user data.
    var thunk: GCallback {
        switch self {
        case .plain:
            let f: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
                guard case .plain(let body) = UserData<SignalShape>.borrow(data) else { return }
                MainActor.assumeIsolated { body() }
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .returningBool:
            let f: @convention(c) (gpointer?, gpointer?) -> gboolean = { _, data in
                guard case .returningBool(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                return MainActor.assumeIsolated { body() } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .keyPressed:
            let f: @convention(c) (gpointer?, guint, guint, UInt32, gpointer?) -> gboolean = { _, keyval, _, modifiers, data in
                guard case .keyPressed(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                return MainActor.assumeIsolated { body(keyval, modifiers) } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .enumValue:
            let f: @convention(c) (gpointer?, UInt32, gpointer?) -> Void = { _, value, data in
                guard case .enumValue(let body) = UserData<SignalShape>.borrow(data) else { return }
                MainActor.assumeIsolated { body(value) }
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .pointer:
            let f: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, argument, data in
                guard case .pointer(let body) = UserData<SignalShape>.borrow(data) else { return }
                MainActor.assumeIsolated { [argument = UnsafeSendable(argument)] in body(argument.value) }
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .pointerReturningBool:
            let f: @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean = { _, argument, data in
                guard case .pointerReturningBool(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                return MainActor.assumeIsolated { [argument = UnsafeSendable(argument)] in body(argument.value) } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .twoPointersReturningBool:
            let f: @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?) -> gboolean = { _, first, second, data in
                guard case .twoPointersReturningBool(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                return MainActor.assumeIsolated { [first = UnsafeSendable(first), second = UnsafeSendable(second)] in
                    body(first.value, second.value)
                } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .threePointersReturningBool:
            let f: @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?, gpointer?) -> gboolean = { _, first, second, third, data in
                guard case .threePointersReturningBool(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                return MainActor.assumeIsolated {
                    [first = UnsafeSendable(first), second = UnsafeSendable(second), third = UnsafeSendable(third)] in
                    body(first.value, second.value, third.value)
                } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .decidePolicy:
            let f: @convention(c) (gpointer?, gpointer?, UInt32, gpointer?) -> gboolean = { _, decision, type, data in
                guard case .decidePolicy(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                return MainActor.assumeIsolated { [decision = UnsafeSendable(decision)] in body(decision.value, type) } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .loadFailed:
            let f: @convention(c) (gpointer?, UInt32, UnsafePointer<gchar>?, UnsafeMutablePointer<GError>?, gpointer?) -> gboolean = {
                _, event, uri, error, data in
                guard case .loadFailed(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                let uri = uri.map { String(cString: $0) } ?? ""
                let error = error.map { GLibError(UnsafePointer($0)) }
                return MainActor.assumeIsolated { body(event, uri, error) } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .loadFailedWithTLSErrors:
            let f: @convention(c) (gpointer?, UnsafePointer<gchar>?, gpointer?, UInt32, gpointer?) -> gboolean = {
                _, uri, certificate, errors, data in
                guard case .loadFailedWithTLSErrors(let body) = UserData<SignalShape>.borrow(data) else { return 0 }
                let uri = uri.map { String(cString: $0) } ?? ""
                return MainActor.assumeIsolated { [certificate = UnsafeSendable(certificate)] in body(uri, certificate.value, errors) } ? 1 : 0
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .create:
            let f: @convention(c) (gpointer?, gpointer?, gpointer?) -> gpointer? = { _, action, data in
                guard case .create(let body) = UserData<SignalShape>.borrow(data) else { return nil }
                let widget = MainActor.assumeIsolated { [action = UnsafeSendable(action)] in UInt(bitPattern: body(action.value)) }
                return UnsafeMutableRawPointer(bitPattern: widget)
            }
            return unsafeBitCast(f, to: GCallback.self)
        case .open:
            let f: @convention(c) (gpointer?, UnsafeMutablePointer<OpaquePointer?>?, gint, UnsafeMutablePointer<gchar>?, gpointer?) -> Void = {
                _, files, count, hint, data in
                guard case .open(let body) = UserData<SignalShape>.borrow(data) else { return }
                var uris: [String] = []
                if let files {
                    for index in 0..<Int(max(count, 0)) {
                        guard let file = files[index], let uri = g_file_get_uri(file) else { continue }
                        uris.append(String(cString: uri))
                        g_free(uri)
                    }
                }
                let hint = hint.map { String(cString: $0) } ?? ""
                MainActor.assumeIsolated { body(uris, hint) }
            }
            return unsafeBitCast(f, to: GCallback.self)
        }
    }
}
