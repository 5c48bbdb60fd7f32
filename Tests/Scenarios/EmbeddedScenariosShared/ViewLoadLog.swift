import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport

/// Every navigation decision and load event of one `WebKitWebView`, seen as an app could see them:
/// emission hooks on the class's `decide-policy` and `load-changed` (`g_signal_add_emission_hook`),
/// which run before any handler, the library's included, and which the library cannot remove.
/// Each entry says whether the caller had resumed (``markResumed()``) when it happened.
@MainActor
final class ViewLoadLog {
    struct Entry {
        /// `navigation <uri>`, `new-window <uri>`, `started <uri>`, `committed <uri>`, ...
        let text: String
        let afterResume: Bool
    }

    private let view: UnsafeMutableRawPointer
    private(set) var entries: [Entry] = []
    private var resumed = false
    private var hooks: [(signal: guint, id: gulong)] = []
    private var box: Unmanaged<Box>?

    private final class Box {
        weak var log: ViewLoadLog?
        init(_ log: ViewLoadLog) { self.log = log }
    }

    init(view: UnsafeMutableRawPointer) {
        self.view = view
        let box = Unmanaged.passRetained(Box(self))
        self.box = box
        let type = webkit_web_view_get_type()
        for name in ["decide-policy", "load-changed"] {
            let signal = g_signal_lookup(name, type)
            let id = g_signal_add_emission_hook(signal, 0, { _, count, values, data in
                guard let values, let data, count >= 2 else { return 1 }
                let instance = g_value_get_object(values)
                let second = values.advanced(by: 1)
                let third = count >= 3 ? values.advanced(by: 2) : nil
                let box = Unmanaged<Box>.fromOpaque(data).takeUnretainedValue()
                MainActor.assumeIsolated {
                    box.log?.record(instance: instance, second: second, third: third)
                }
                return 1  // stay
            }, box.toOpaque(), nil)
            hooks.append((signal, id))
        }
    }

    /// From now on entries count as after the caller resumed.
    func markResumed() { resumed = true }

    /// Removes the hooks (once).
    func stop() {
        for hook in hooks { g_signal_remove_emission_hook(hook.signal, hook.id) }
        hooks = []
        box?.release()
        box = nil
    }

    /// What happened after the caller resumed.
    var afterResume: [String] { entries.filter(\.afterResume).map(\.text) }

    private func record(instance: gpointer?, second: UnsafePointer<GValue>, third: UnsafePointer<GValue>?) {
        guard instance == view else { return }
        if let third {  // decide-policy (decision, type)
            let type = WebKitPolicyDecisionType(UInt32(g_value_get_enum(third)))
            guard let decision = g_value_get_object(second) else { return }
            switch type {
            case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION, WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
                let action = webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision))
                let uri = action.flatMap { webkit_navigation_action_get_request($0) }.flatMap { webkit_uri_request_get_uri($0) }
                let kind = type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION ? "navigation" : "new-window"
                entries.append(Entry(text: "\(kind) \(uri.map { String(cString: $0) } ?? "?")", afterResume: resumed))
            default:
                return
            }
        } else {  // load-changed (event)
            let event = WebKitLoadEvent(UInt32(g_value_get_enum(second)))
            let name: String
            switch event {
            case WEBKIT_LOAD_STARTED: name = "started"
            case WEBKIT_LOAD_REDIRECTED: name = "redirected"
            case WEBKIT_LOAD_COMMITTED: name = "committed"
            default: name = "finished"
            }
            let uri = webkit_web_view_get_uri(wvh_web_view(view)).map { String(cString: $0) } ?? ""
            entries.append(Entry(text: "\(name) \(uri)", afterResume: resumed))
        }
    }
}
