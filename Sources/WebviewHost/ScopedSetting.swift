import Synchronization

/// A process-wide setting of a module above the host (the embedded provider's
/// `applicationID`, say), kept in ``WebviewProviderRegistry``'s store so that
/// ``WebviewProviderRegistry/withIsolatedRegistry(isolation:_:)`` isolates it with the providers:
/// outside any isolated scope it is the process's value; inside one, the scope's own, which starts
/// as the enclosing scope's (or, when `inheritedByIsolatedScopes` is `false`, as a new default)
/// and which a set inside changes for that scope only.
///
/// Task-local: a GLib or GTK callback runs in no task and sees the process's value. What a session
/// reads in its callbacks, it takes when it is made (in the task that starts it). Keep one in a
/// `static let`: the value is keyed by this object. Thread-safe.
package final class ScopedSetting<Value: Sendable>: Sendable {
    fileprivate let makeDefault: @Sendable () -> Value
    fileprivate let inheritedByIsolatedScopes: Bool

    /// A setting whose value, until one is set, is `makeDefault()` (called once per scope).
    package init(inheritedByIsolatedScopes: Bool = true, _ makeDefault: @escaping @Sendable () -> Value) {
        self.makeDefault = makeDefault
        self.inheritedByIsolatedScopes = inheritedByIsolatedScopes
    }

    /// The value in the current task's scope (the process's outside any isolated one).
    package var value: Value {
        get { ProviderStore.current.value(of: self) }
        set { ProviderStore.current.setValue(newValue, of: self) }
    }
}

/// One ``ScopedSetting``'s value in one ``ProviderStore``.
struct ScopedSettingEntry: Sendable {
    let value: any Sendable
    let inherited: Bool
}

extension ProviderStore {
    /// `setting`'s value here; its default, from now on, when none was set.
    func value<Value>(of setting: ScopedSetting<Value>) -> Value {
        settings.withLock { entries in
            if let value = entries[ObjectIdentifier(setting)]?.value as? Value { return value }
            let value = setting.makeDefault()
            entries[ObjectIdentifier(setting)] = ScopedSettingEntry(value: value, inherited: setting.inheritedByIsolatedScopes)
            return value
        }
    }

    func setValue<Value>(_ value: Value, of setting: ScopedSetting<Value>) {
        settings.withLock {
            $0[ObjectIdentifier(setting)] = ScopedSettingEntry(value: value, inherited: setting.inheritedByIsolatedScopes)
        }
    }

    /// What an isolated store made inside this one starts with.
    var inheritedSettings: [ObjectIdentifier: ScopedSettingEntry] {
        settings.withLock { $0.filter(\.value.inherited) }
    }
}
