public import CGLib

/// A Swift value (usually a closure) carried through a C callback's `gpointer user_data`: retained
/// when handed to C, released exactly once.
///
/// Three ways it is released, matching the three ways GLib ends a callback's life:
/// - a one-shot callback (`GAsyncReadyCallback`) takes the value back with ``take(_:)``, which
///   releases it;
/// - a callback that may run many times (a `GSource`, a child watch, a signal, a libsoup handler)
///   reads it with ``borrow(_:)`` and GLib releases it through ``destroyNotify`` (or
///   ``closureNotify`` for `g_signal_connect_data`) when the source or connection goes;
/// - never both.
///
/// The typed shapes ``AsyncReadyCallback``, ``SourceCallback`` and ``ChildWatchCallback`` are
/// built on it; use it directly for any other C callback shape:
///
/// ```swift
/// // A libsoup handler, called for every request until the handler is removed:
/// let handle: @MainActor (OpaquePointer) -> Void = { message in ... }
/// soup_server_add_handler(server, nil, { _, message, _, _, data in
///     let body = UserData<@MainActor (OpaquePointer) -> Void>.borrow(data)
///     MainActor.assumeIsolated { body(message!) }
/// }, UserData.retained(handle), UserData<@MainActor (OpaquePointer) -> Void>.destroyNotify)
/// ```
public final class UserData<Value> {
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// `value` in a retained box, as a `gpointer` for C. Exactly one ``take(_:)`` or one call of
    /// the destroy notifier must follow, or it leaks.
    public static func retained(_ value: Value) -> gpointer {
        Unmanaged.passRetained(UserData(value)).toOpaque()
    }

    /// The value behind `data` (from ``retained(_:)``), still retained: for callbacks that may run
    /// again. `data` must come from ``retained(_:)`` with the same `Value`.
    public static func borrow(_ data: gpointer?) -> Value {
        Unmanaged<UserData>.fromOpaque(data!).takeUnretainedValue().value
    }

    /// The value behind `data` (from ``retained(_:)``), released now: for a callback GLib calls
    /// exactly once and that has no destroy notifier (`GAsyncReadyCallback`).
    public static func take(_ data: gpointer?) -> Value {
        Unmanaged<UserData>.fromOpaque(data!).takeRetainedValue().value
    }

    /// A `GDestroyNotify` that releases the value (`g_idle_add_full`, `g_source_set_callback`,
    /// `g_child_watch_add_full`, `soup_server_add_handler`...).
    public static var destroyNotify: GDestroyNotify {
        { data in
            if let data { Unmanaged<AnyObject>.fromOpaque(data).release() }
        }
    }

    /// A `GClosureNotify` that releases the value (`g_signal_connect_data`).
    public static var closureNotify: GClosureNotify {
        { data, _ in
            if let data { Unmanaged<AnyObject>.fromOpaque(data).release() }
        }
    }
}
