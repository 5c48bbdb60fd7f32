import Dispatch
import Foundation

/// Where main-actor work runs: the main thread, or a job of the Dispatch main queue (where
/// Swift runs the main actor; in a process parked in `dispatch_main()`, such as a test runner,
/// that queue is drained off the main thread).
public enum MainContext {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()

    /// Whether the caller runs on the main thread or in a main-queue job.
    public static var isCurrent: Bool {
        Thread.isMainThread || (marked && DispatchQueue.getSpecific(key: key) == true)
    }
}
