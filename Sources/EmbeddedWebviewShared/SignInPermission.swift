/// A kind of permission a sign-in page can ask WebKit for (`WebKitWebView::permission-request`,
/// and the Permissions API's `navigator.permissions.query`).
///
/// Every request is denied unless its kind is in ``EmbeddedWebviewProvider/allowedPermissions``;
/// a kind WebKit adds later, unknown here, is always denied. See the article "The sign-in surface".
public enum SignInPermission: String, CaseIterable, Sendable, Hashable {
    /// `navigator.geolocation` (`WebKitGeolocationPermissionRequest`).
    case geolocation
    /// `Notification.requestPermission()` (`WebKitNotificationPermissionRequest`); allowed, the
    /// page's notifications are shown by WebKit (`show-notification`).
    case notifications
    /// Camera, microphone and screen capture (`WebKitUserMediaPermissionRequest`). The view's
    /// `enable-media-stream` and `enable-webrtc` settings are off for a sign-in either way, so a
    /// page cannot reach `getUserMedia` unless the app turns them back on in its own view.
    case mediaDevices
    /// The list of media devices (`WebKitDeviceInfoPermissionRequest`).
    case deviceInfo
    /// `requestPointerLock()` (`WebKitPointerLockPermissionRequest`).
    case pointerLock
    /// Reading the clipboard from script (`WebKitClipboardPermissionRequest`).
    case clipboard
    /// `document.requestStorageAccess()` (`WebKitWebsiteDataAccessPermissionRequest`).
    case websiteDataAccess
    /// Encrypted media key systems (`WebKitMediaKeySystemPermissionRequest`).
    case mediaKeySystem
    /// Installing missing GStreamer plugins (`WebKitInstallMissingMediaPluginsPermissionRequest`, WebKitGTK 4.1).
    case missingMediaPlugins

    /// The kind of a `WebKitPermissionRequest` by its GType name; `nil` for a kind unknown here.
    static func ofRequest(typeName: String) -> SignInPermission? {
        switch typeName {
        case "WebKitGeolocationPermissionRequest": .geolocation
        case "WebKitNotificationPermissionRequest": .notifications
        case "WebKitUserMediaPermissionRequest": .mediaDevices
        case "WebKitDeviceInfoPermissionRequest": .deviceInfo
        case "WebKitPointerLockPermissionRequest": .pointerLock
        case "WebKitClipboardPermissionRequest": .clipboard
        case "WebKitWebsiteDataAccessPermissionRequest": .websiteDataAccess
        case "WebKitMediaKeySystemPermissionRequest": .mediaKeySystem
        case "WebKitInstallMissingMediaPluginsPermissionRequest": .missingMediaPlugins
        default: nil
        }
    }

    /// The kind a Permissions API name (`navigator.permissions.query({name})`) stands for; `nil`
    /// for a name unknown here.
    static func ofQuery(name: String) -> SignInPermission? {
        switch name {
        case "geolocation": .geolocation
        case "notifications", "push": .notifications
        case "camera", "microphone", "display-capture": .mediaDevices
        case "clipboard-read", "clipboard-write": .clipboard
        case "storage-access", "top-level-storage-access": .websiteDataAccess
        default: nil
        }
    }
}
