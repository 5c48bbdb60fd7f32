import Synchronization

/// The one interactive session a process (or an isolated registry) may run at a time.
///
/// The session that holds the slot is also where a redirect the app was opened with is handed
/// (``WebAuthSession/handleOpenURL(_:)-(String)``), so the host, not a provider, decides who gets it.
final class InteractiveSessionSlot: Sendable {
    private struct Holder {
        var owner: ObjectIdentifier?
        weak var session: WebAuthSession?
    }

    private let holder = Mutex(Holder())

    /// Claims the slot for `session`; false when another session holds it.
    func claim(for session: WebAuthSession) -> Bool {
        let owner = ObjectIdentifier(session)
        return holder.withLock { current in
            guard current.owner == nil || current.owner == owner else { return false }
            current = Holder(owner: owner, session: session)
            return true
        }
    }

    /// Frees the slot if `owner` holds it.
    func release(from owner: ObjectIdentifier) {
        holder.withLock { current in
            if current.owner == owner { current = Holder() }
        }
    }

    /// The session holding the slot, while it is alive.
    var session: WebAuthSession? { holder.withLock { $0.session } }

    var isFree: Bool { holder.withLock { $0.owner == nil } }
}
