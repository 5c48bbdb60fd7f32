public import CGLib

/// The signal handlers one owner (a sign-in session, say) attached, so that it can remove every
/// one of them at the end and leave nothing behind.
///
/// Listening never keeps an object alive: each instance is held by a weak reference
/// (`GWeakRef`), so an object its owner lets go of goes as usual (GTK 4 destroys a widget, and
/// emits `destroy`, only when its last reference goes), and disconnecting skips an object that
/// is already gone. Main thread only.
@MainActor
public final class SignalConnections {
    private var connections: [(instance: GObjectWeakRef<UnsafeMutableRawPointer>, id: gulong)] = []

    public init() {}

    isolated deinit {
        disconnectAll()
    }

    /// Connects `handler` to `signal` (`"decide-policy"`, `"notify::title"`...) of `instance`.
    /// - Returns: the handler id (`g_signal_connect_data`), or 0 if the signal does not exist.
    @discardableResult
    public func connect(_ instance: some GObjectPointer, _ signal: String, _ handler: SignalHandler) -> gulong {
        let id = SignalHandler.connect(handler, to: signal, on: instance.objectAddress)
        if id != 0 {
            connections.append((GObjectWeakRef(instance.objectAddress), id))
        }
        return id
    }

    /// Connects `handler` to `signal` of `object`, as the pointer form does.
    @discardableResult
    public func connect<Pointer>(_ object: GObjectRef<Pointer>, _ signal: String, _ handler: SignalHandler) -> gulong {
        connect(object.pointer, signal, handler)
    }

    /// How many handlers are connected now.
    public var count: Int { connections.count }

    /// Disconnects every handler connected through this object (`g_signal_handler_disconnect`),
    /// most recent first, on the instances that still exist (a finalized object has no handlers
    /// left). Calling it again does nothing.
    public func disconnectAll() {
        while let (reference, id) = connections.popLast() {
            guard let instance = reference.get() else { continue }
            if g_signal_handler_is_connected(instance.pointer, id) != 0 {
                g_signal_handler_disconnect(instance.pointer, id)
            }
        }
    }
}

/// Inspection of GObject signal handlers, for tests and diagnostics.
public enum SignalInspection {
    /// The number of (unblocked) handlers connected to any signal of `instance`: its class,
    /// every ancestor and every interface.
    @MainActor
    public static func handlerCount(on instance: UnsafeMutableRawPointer) -> Int {
        var total = 0
        var types: [GType] = []
        var type = wvh_object_type(instance)
        while type != 0 {
            types.append(type)
            var interfaceCount: guint = 0
            if let interfaces = g_type_interfaces(type, &interfaceCount) {
                types.append(contentsOf: (0..<Int(interfaceCount)).map { interfaces[$0] })
                g_free(interfaces)
            }
            type = g_type_parent(type)
        }
        for type in Set(types) {
            var idCount: guint = 0
            guard let ids = g_signal_list_ids(type, &idCount) else { continue }
            for index in 0..<Int(idCount) {
                total += unblockedHandlers(on: instance, signal: ids[index])
            }
            g_free(ids)
        }
        return total
    }

    /// Counts by finding an unblocked handler, blocking it so the next search finds the next
    /// one, then unblocking them all (GLib's `*_matched` functions cannot match by signal alone).
    @MainActor
    private static func unblockedHandlers(on instance: UnsafeMutableRawPointer, signal: guint) -> Int {
        var found: [gulong] = []
        let mask = GSignalMatchType(G_SIGNAL_MATCH_ID.rawValue | G_SIGNAL_MATCH_UNBLOCKED.rawValue)
        while true {
            let id = g_signal_handler_find(instance, mask, signal, 0, nil, nil, nil)
            if id == 0 { break }
            found.append(id)
            g_signal_handler_block(instance, id)
        }
        for id in found { g_signal_handler_unblock(instance, id) }
        return found.count
    }
}
