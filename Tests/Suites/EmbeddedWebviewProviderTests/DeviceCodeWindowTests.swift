import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The library's window for a device code (issue 25), in GTK 3 and GTK 4 on X11: what a person
/// sees (the instructions and warning, the code in a selectable label with the focus, a QR code
/// a camera reads back from a screenshot, the link, the time left), what a screen reader is
/// given for the code, and each way out: Escape and Cancel call `cancel` once, the sign-in's
/// `close` removes it, a parent destroyed takes it along (and cancels), a code that runs out says so.
@Suite("The device-code window", .serialized, .desktop)
struct DeviceCodeWindowTests {
    @Test(arguments: Platform.x11)
    func whatAPersonSeesAndEachWayOut(_ platform: Platform) async throws {
        let shot = EmbeddedWebviewProviderTests.temporaryFolder().appendingPathExtension("png")
        defer { try? FileManager.default.removeItem(at: shot) }
        // A display of its own: the QR code is read off the whole screen, where another test's
        // window could show one too.
        let report = try await EmbeddedWebviewProviderTests.scenario(.deviceCodeWindow, shot.path, on: platform, display: .privateX11)
        #expect(report[.outcome] == "success", "\(report[.outcome] ?? "")")
        #expect(report[.deviceWindowTransientForApp] == true)
        #expect(report[.deviceWindowModal] == true)
        let labels = report[.windowLabels] ?? []
        #expect(labels.contains { $0.contains("Go on only if you started this sign-in yourself") }, "\(labels)")
        #expect(labels.contains("WDJB-MJHT"))
        #expect(labels.contains("Or scan this code with your phone's camera"))
        #expect(report[.headerButtons] == ["_Cancel"])
        #expect(report[.codeSelectable] == true)
        #expect(report[.focusedText] == "WDJB-MJHT", "the focus is on the code when the window opens")
        if platform.toolkit == .gtk3 {
            #expect(report[.codeAccessibleName] == "Your code: W D J B , dash, M J H T")
        }
        #expect(report[.qrDecoded] == "http://127.0.0.1:4593/api/oidc/device?code=WDJB-MJHT", "zbarimg read the screenshot")
        #expect(report[.timeLeftText]?.hasPrefix("Time left: 9:5") == true, "\(report[.timeLeftText] ?? "")")
        #expect(report[.cancelsAfterEscape] == 1)
        #expect(report[.cancelsAfterButton] == 1, "cancel is called once")
        #expect(report[.goneAfterClose] == true)
        #expect(report[.timeLeftText.suffixed(by: "Expired")] == "This code has expired.")
        #expect(report[.goneWithParent] == true)
        #expect(report[.cancelsWithParent] == 1)
    }
}
