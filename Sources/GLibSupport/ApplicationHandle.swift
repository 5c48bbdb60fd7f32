public import CGLib

/// The app's `GApplication` (or a subclass: `GtkApplication`, `AdwApplication`), as the library's
/// API takes it (`CustomSchemeRedirect.connect(to:)`). It holds no reference: the caller keeps the
/// application alive; whoever reads it checks `G_IS_APPLICATION` first, on the main thread.
///
/// ```swift
/// let app = g_application_new("com.example.App", G_APPLICATION_HANDLES_OPEN)!  // or gtk_application_new
/// let redirects = try CustomSchemeRedirect.connect(to: ApplicationHandle(app))
/// ```
public struct ApplicationHandle: RawRepresentable, Hashable, @unchecked Sendable {
    /// The `GApplication *`.
    public let rawValue: UnsafeMutableRawPointer

    public init(rawValue: UnsafeMutableRawPointer) { self.rawValue = rawValue }

    /// The application `application` points at (`UnsafeMutablePointer<GApplication>`,
    /// `UnsafeMutablePointer<GtkApplication>`, or any GObject pointer type).
    public init(_ application: some GObjectPointer) { self.rawValue = application.objectAddress }

    /// Whether the object is a `GApplication` (`G_IS_APPLICATION`).
    public var isApplication: Bool { wvh_is_application(rawValue) != 0 }

    /// The object as a `GApplication *` (`G_APPLICATION()`), for the `g_application_*` functions;
    /// `nil` when it is not one.
    public var application: UnsafeMutablePointer<GApplication>? {
        isApplication ? wvh_application(rawValue) : nil
    }
}
