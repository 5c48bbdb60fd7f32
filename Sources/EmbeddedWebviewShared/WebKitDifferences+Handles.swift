#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif

/// The C types the embedded provider points at, named once: the same in GTK 3 and GTK 4 (the
/// toolkits' instance structs are public). What the library owns is held as a `GObjectRef` of
/// these; what it is lent (a caller's view, a window's children) as the pointer itself.
extension WebKitDifferences {
    /// A `WebKitWebView *`.
    typealias WebView = UnsafeMutablePointer<WebKitWebView>
    /// A `GtkWindow *`.
    typealias Window = UnsafeMutablePointer<GtkWindow>
    /// A `GtkWidget *`.
    typealias Widget = UnsafeMutablePointer<GtkWidget>
    /// A `WebKitPolicyDecision *` (`decide-policy`'s argument; derivable in both WebKits).
    typealias PolicyDecision = UnsafeMutablePointer<WebKitPolicyDecision>
    /// A `WebKitNavigationAction *` (boxed, so opaque): `create`'s argument.
    typealias NavigationAction = OpaquePointer
    /// A `WebKitPermissionRequest *` (an interface, so opaque): `permission-request`'s argument.
    typealias PermissionRequest = OpaquePointer
    /// A `WebKitPermissionStateQuery *` (boxed, so opaque): `query-permission-state`'s argument.
    typealias PermissionStateQuery = OpaquePointer
    /// A `WebKitScriptDialog *` (boxed, so opaque): `script-dialog`'s argument.
    typealias ScriptDialog = OpaquePointer
    #if WEBKITGTK_6
    /// A `WebKitAuthenticationRequest *` (`authenticate`'s argument): a final type in 6.0, so opaque.
    typealias AuthenticationRequest = OpaquePointer
    #else
    /// A `WebKitAuthenticationRequest *` (`authenticate`'s argument): its instance struct is public in 4.1.
    typealias AuthenticationRequest = UnsafeMutablePointer<WebKitAuthenticationRequest>
    #endif
}
