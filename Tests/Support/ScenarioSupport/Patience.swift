import Foundation

/// How long a scenario waits for an event before it calls it missing: deadlines for a slow,
/// loaded machine (a CI host, a laptop building something else), never sleeps.
///
/// A wait returns as soon as its event comes, so a long deadline costs nothing when all is
/// well; it only bounds how long a real failure takes to show. Every deadline passes through
/// ``scaled(_:)``: `WEBVIEW_HOST_TEST_PATIENCE=2` doubles them all for a machine slower still.
/// Waits for something that must *not* happen (a launch, a dialog) stay short and are not
/// scaled by callers that would otherwise make every passing run slow.
public enum Patience {
    /// The factor from `WEBVIEW_HOST_TEST_PATIENCE` (default 1, at least 1).
    /// Reading it first also starts ``StallWatch`` (in the test process), which reports a main
    /// queue or a cooperative pool held for 10 s.
    public static let factor: Double = {
        StallWatch.start()
        return max(1, ProcessInfo.processInfo.environment["WEBVIEW_HOST_TEST_PATIENCE"].flatMap(Double.init) ?? 1)
    }()

    /// `duration` times ``factor``.
    public static func scaled(_ duration: Duration) -> Duration { duration * factor }

    /// The deadline for an event that is expected (a page loading, a window appearing): 30 s,
    /// scaled. A web process starting on two busy cores has been seen to take over 10 s.
    public static var event: Duration { scaled(.seconds(30)) }
}
