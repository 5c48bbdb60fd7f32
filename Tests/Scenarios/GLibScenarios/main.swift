// GTK scenarios for GLibSupport, run in a real gtk_main() by GLibSupportTests.
import BuiltInWebviewProvidersGTK3
import CGLib
import CWebKitGTK3
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
func mainActorValue(after delay: Duration) async -> Int {
    try? await Task.sleep(for: delay)
    return 42
}

/// CPU time (user + system) this process has used, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

ScenarioHost.main(GLibScenario.self, initializeToolkit: { gtk_init_check(nil, nil) != 0 ? UnsafeMutableRawPointer(gdk_display_get_default()) : nil }) { name in
    switch name {
    // A main-actor Task, a DispatchQueue.main block and an await on a main-actor API all run
    // while gtk_main() runs, and GLib's own sources keep running beside them.
    case .bridgeResumes: { _ in
        let insideGTKMain = g_main_depth() > 0
        var order: [String] = []
        let taskDone = await withCheckedContinuation { continuation in
            Task { @MainActor in
                order.append("task")
                continuation.resume(returning: Thread.isMainThread)
            }
        }
        let dispatchDone = await withCheckedContinuation { continuation in
            DispatchQueue.main.async {
                order.append("dispatch")
                continuation.resume(returning: Thread.isMainThread)
            }
        }
        let value = await mainActorValue(after: .milliseconds(50))
        var timeoutFired = false
        let glibTimeout = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let box = Unmanaged.passRetained(ContinuationBox(continuation)).toOpaque()
            g_timeout_add_full(G_PRIORITY_DEFAULT, 20, { data in
                Unmanaged<ContinuationBox>.fromOpaque(data!).takeRetainedValue().continuation.resume(returning: true)
                return 0
            }, box, nil)
        }
        timeoutFired = glibTimeout
        var report = ScenarioReport()
        report[.insideGTKMain] = insideGTKMain
        report[.taskOnMainThread] = taskDone
        report[.dispatchOnMainThread] = dispatchDone
        report[.awaitedValue] = value
        report[.order] = order
        report[.glibTimeoutFired] = timeoutFired
        return report
    }
    // An idle gtk_main() with the bridge installed: CPU time used over one second.
    case .bridgeIdleCpu: { _ in
        await ScenarioHost.idle(.milliseconds(200))
        let before = processCPUSeconds()
        let start = ContinuousClock.now
        await ScenarioHost.idle(.seconds(1))
        let elapsed = ContinuousClock.now - start
        var report = ScenarioReport()
        report[.cpuSeconds] = processCPUSeconds() - before
        report[.wallSeconds] = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return report
    }
    // The built-in providers through the real policy, in this process's environment.
    case .builtIns: { _ in
        WebviewProviderRegistry.registerBuiltInProviders()
        let environment = WebviewEnvironment.current
        let providers = WebviewProviderRegistry.providers
        let policy = WebviewProviderRegistry.selectionPolicy
        var facts = ScenarioReport()
        facts[.registered] = providers.map(\.id.rawValue)
        facts[.help] = DefaultWebviewSelectionPolicy.helpText(providers: providers, environment: environment)
        func choice(_ parameters: WebviewParameters, _ environment: WebviewEnvironment) -> String {
            let chosen = Result { () throws(WebAuthError) -> any WebviewProvider in
                try policy.selectProvider(for: parameters, among: providers, in: environment)
            }
            switch chosen {
            case .success(let provider): return provider.id.rawValue
            case .failure(let error): return "\(error.code): \(error.message)"
            }
        }
        facts[.default] = choice(.init(), environment)
        facts[.authenticationSession] = choice(.init(webviewType: .authenticationSession), environment)
        facts[.noDisplay] = choice(.init(), WebviewEnvironment(variables: [:]))
        return facts
    }
    // Handlers connected through SignalConnections run, are counted by GLib, and are all gone
    // (closures released) after disconnectAll().
    case .signals: { _ in
        let label = gtk_label_new("before")!
        g_object_ref_sink(label)
        defer { g_object_unref(label) }
        let baseline = SignalInspection.handlerCount(on: label)
        let connections = SignalConnections()
        var notified: [String] = []
        weak var released: Tracker?
        do {
            let tracker = Tracker()
            released = tracker
            connections.connect(label, "notify::label", .pointer {
                tracker.hits += 1
                notified.append(String(cString: gtk_label_get_text(wvh_label(label))))
            })
            connections.connect(label, "destroy", .plain {})
        }
        let connected = SignalInspection.handlerCount(on: label)
        gtk_label_set_text(wvh_label(label), "after")
        let trackerAliveWhileConnected = released != nil
        connections.disconnectAll()
        let afterDisconnect = SignalInspection.handlerCount(on: label)
        gtk_label_set_text(wvh_label(label), "ignored")
        connections.disconnectAll()
        var report = ScenarioReport()
        report[.baseline] = baseline
        report[.connected] = connected
        report[.afterDisconnect] = afterDisconnect
        report[.notified] = notified
        report[.closureAliveWhileConnected] = trackerAliveWhileConnected
        report[.closureReleasedAfterDisconnect] = released == nil
        report[.countAfter] = connections.count
        return report
    }
    // Never finishes, its main loop running: the watchdog (SCENARIO_TIMEOUT) ends it with its
    // threads' stacks (ScenarioWatchdogTests).
    case .neverFinishes: { _ in
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
    // Blocks its main loop (the watchdog's timeout never runs): the test runner kills it, after
    // reading its threads' stacks (ScenarioWatchdogTests).
    case .blocksMainLoop: { _ in
        while true { sleep(3600) }
    }
    }
}

final class ContinuationBox {
    let continuation: CheckedContinuation<Bool, Never>
    init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = continuation }
}

@MainActor
final class Tracker {
    var hits = 0
}
