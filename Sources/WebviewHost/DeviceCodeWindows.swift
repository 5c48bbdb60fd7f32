public import Foundation

/// What a window showing a device code holds (the device authorization grant: the person signs
/// in on another device). Built by `SignIn`; shown by the app's toolkit module.
public struct DeviceCodeWindowContent: Sendable {
    /// The code to type, shown in large type, selectable, and read character by character by a
    /// screen reader.
    public var userCode: String
    /// The page to open (with the code in it when the provider gave such a link).
    public var link: URL
    /// What to tell the person, the phishing warning included.
    public var instructions: String
    /// When the code stops working (the window counts down).
    public var expiresOn: Date
    /// The QR code of ``link``, row by row (`true`: a dark module), without its quiet zone.
    public var qrCode: [[Bool]]?

    public init(userCode: String, link: URL, instructions: String, expiresOn: Date, qrCode: [[Bool]]?) {
        self.userCode = userCode
        self.link = link
        self.instructions = instructions
        self.expiresOn = expiresOn
        self.qrCode = qrCode
    }
}

/// The toolkit's window for a device code, installed by `registerBuiltInProviders()` (GTK 3 and
/// GTK 4): `present` shows it transient for `parent`, calls `cancel` when the person presses
/// Cancel or closes it, and returns what closes it. `nil` without a toolkit module.
///
/// Kept in ``WebviewProviderRegistry``'s store: inside
/// ``WebviewProviderRegistry/withIsolatedRegistry(isolation:_:)`` it starts as outside, and a
/// test that replaces it there replaces it for itself only.
@MainActor
public enum DeviceCodeWindows {
    public typealias Present = @MainActor (
        _ content: DeviceCodeWindowContent, _ parent: WindowHandle?, _ cancel: @escaping @MainActor () -> Void
    ) -> (@MainActor () -> Void)
    public static var present: Present? {
        get { installed.value }
        set { installed.value = newValue }
    }

    private static let installed = ScopedSetting<Present?> { nil }
}
