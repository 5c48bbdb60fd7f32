import GLibSupport

/// Carries a completion through a GLib `GAsyncReadyCallback`'s user data (passed retained,
/// taken back exactly once by the callback, which calls it with the error, if any).
final class CompletionBox {
    let completion: @MainActor (GLibError?) -> Void
    init(_ completion: @escaping @MainActor (GLibError?) -> Void) { self.completion = completion }
}
