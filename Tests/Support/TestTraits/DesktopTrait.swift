public import Testing
import ScenarioSupport

/// Each test case of the suite (or test) holds one of the test process's desktop slots
/// (``ScenarioSupport/DesktopSlots``) from its start to its end: the suites that start sign-in
/// windows, web processes, browsers or compositors take turns beyond a few at once, instead of
/// all loading the machine together.
public struct DesktopTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite and the test function as a whole run through; each of their cases holds a slot.
        guard testCase != nil else { return try await function() }
        try await DesktopSlots.holding { try await function() }
    }
}

extension Trait where Self == DesktopTrait {
    /// The test drives a desktop: it runs in one of the test process's desktop slots.
    public static var desktop: Self { Self() }
}
