extension EmbeddedWebviewProvider {
    /// The kinds of permission a sign-in page may be granted (`permission-request`); every other
    /// request is denied, and the Permissions API reports it denied. Empty by default. Applies to
    /// sessions started afterwards, in the library's window and in a caller's view. Main thread.
    ///
    /// See the article "The sign-in surface" for everything else the view refuses a page.
    @MainActor public static var allowedPermissions: Set<SignInPermission> = []
}
