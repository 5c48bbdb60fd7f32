/// A value handed from a GLib callback to main-actor code on the same (main) thread.
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
