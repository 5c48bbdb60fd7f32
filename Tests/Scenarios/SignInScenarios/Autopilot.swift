import Foundation
import ScenarioSupport

/// Page JavaScript that signs in on Glewlwyd's login application as a person would: types the
/// user name and each password in turn into `#username` / `#password` and presses `#loginbut`,
/// ticks every scope and presses "Grant access" on the consent screen, then "Continue".
/// Each step is announced in `document.title` (`wvh:login-1`, `wvh:consent`, `wvh:continue`)
/// so the scenario can tell which screens were shown.
///
/// On Glewlwyd's end-session page (`prompt=end_session`, its "Logout" button) it clicks Logout (`wvh:logout`), or, with
/// `logout` `.wait`, only announces the page (`wvh:logout-page`) and leaves it, or with
/// `.forge(url)` goes to `url` instead (a post-logout redirect with a state of its own).
enum AutopilotLogout {
    case click
    case wait
    case forge(String)
}

func autopilotScript(username: String, passwords: [String], logout: AutopilotLogout = .click) -> String {
    let onLogout: String
    switch logout {
    // Once, as a person does: a second click while the first one's calls are on their way fails them.
    case .click: onLogout = "if (loggedOut) return; loggedOut = true; document.title = 'wvh:logout'; logout.click(); last = Date.now(); return;"
    case .wait: onLogout = "document.title = 'wvh:logout-page'; return;"
    case .forge(let url): onLogout = "document.title = 'wvh:logout-forged'; location.href = '\(url)'; last = Date.now() + 60000; return;"
    }
    let script = (try? String(contentsOf: Checkout.fixture("Glewlwyd").appendingPathComponent("autopilot.js"), encoding: .utf8)) ?? ""
    let quoted = { (text: String) in String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self) }
    return script
        .replacingOccurrences(of: "__USERNAME__", with: quoted(username))
        .replacingOccurrences(of: "__PASSWORDS__", with: "[" + passwords.map(quoted).joined(separator: ", ") + "]")
        .replacingOccurrences(of: "__ON_LOGOUT__", with: onLogout)
}
