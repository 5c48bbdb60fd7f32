import GLibSupport

/// Carries a continuation through a GLib `GAsyncReadyCallback`'s user data (passed retained,
/// taken back exactly once by the callback, which resumes it with the error, if any).
final class CompletionBox {
    let continuation: CheckedContinuation<GLibError?, Never>
    init(_ continuation: CheckedContinuation<GLibError?, Never>) { self.continuation = continuation }
}
