import CGLib
public import Foundation
import GLibSupport
public import WebviewHost

/// Makes the app the handler of its private-use URI scheme (RFC 8252 section 7.1), so that the
/// browser can send the sign-in's redirect (`com.example.app:/oauth2redirect?code=...`) back to it.
///
/// ```swift
/// try CustomSchemeRegistration.install(
///     scheme: "com.example.app", applicationID: "com.example.App",
///     executable: "/usr/bin/example-app", displayName: "Example")
/// ```
/// The desktop starts the app again with the URI; the app's `GApplication` hands it to the
/// running instance, where ``CustomSchemeRedirect/connect(to:)`` completes the sign-in.
public enum CustomSchemeRegistration {
    /// Checks that `scheme` is a private-use URI scheme RFC 8252 section 7.1 accepts: a reverse
    /// domain name (`com.example.app`) in lowercase ASCII letters, digits, `+`, `-` and `.`,
    /// starting with a letter, with at least one period and no empty label.
    ///
    /// - Throws: `invalidParameters`, with a message that says what is wrong.
    public static func validate(scheme: String) throws(WebAuthError) {
        func invalid(_ reason: String) -> WebAuthError {
            WebAuthError(
                .invalidParameters,
                "The URI scheme \"\(scheme)\" cannot be the app's redirect scheme: \(reason). Use a reverse "
                    + "domain name you control, such as com.example.app (RFC 8252 section 7.1).")
        }
        guard let first = scheme.unicodeScalars.first else { throw invalid("it is empty") }
        guard ("a"..."z").contains(first) else { throw invalid("it must start with a lowercase letter") }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789+-.")
        if let bad = scheme.unicodeScalars.first(where: { !allowed.contains($0) }) {
            throw invalid(
                ("A"..."Z").contains(bad)
                    ? "it has an uppercase letter" : "it has the character \"\(bad)\", which a scheme cannot hold here")
        }
        guard scheme.contains(".") else { throw invalid("it has no period, so it is not a reverse domain name") }
        guard !scheme.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw invalid("it has an empty label (a leading, trailing or doubled period)")
        }
    }

    /// The desktop entry ``install(scheme:applicationID:executable:displayName:)`` writes:
    /// `$XDG_DATA_HOME/applications/<applicationID>.desktop`.
    public static func desktopFileURL(applicationID: String) -> URL {
        URL(fileURLWithPath: String(cString: g_get_user_data_dir()))
            .appendingPathComponent("applications")
            .appendingPathComponent("\(applicationID).desktop")
    }

    /// Writes the desktop entry that declares `x-scheme-handler/<scheme>` (hidden from menus,
    /// `Exec=<executable> %u`) and makes it the scheme's default handler for this user
    /// (`g_app_info_set_as_default_for_type`, which updates `$XDG_CONFIG_HOME/mimeapps.list`).
    /// Installing again replaces the entry. The entry is written with mode 0600 whatever the
    /// umask; missing folders on its path are created 0700, existing ones are left unchanged.
    ///
    /// - Parameters:
    ///   - scheme: the redirect URI's scheme; see ``validate(scheme:)``.
    ///   - applicationID: the app's `GApplication` id (`g_application_id_is_valid`), which names
    ///     the desktop entry; the second instance must use the same id to reach the first.
    ///   - executable: the program to start, an absolute path or a name on `PATH`.
    ///   - displayName: the entry's `Name`.
    /// - Returns: the desktop entry's location.
    /// - Throws: `invalidParameters` for a bad scheme, id or executable; `redirectListenerFailed`
    ///   when the entry cannot be written or made the default (the underlying `GLibError` is kept).
    ///
    /// In a Flatpak sandbox nothing is written (the host never reads the sandbox's data folder):
    /// the app's exported desktop file, `/app/share/applications/<applicationID>.desktop`, must
    /// declare the scheme (`MimeType=x-scheme-handler/<scheme>;`), and that file is checked and
    /// returned; the desktop starts the app through Flatpak with the URI, and its `GApplication`
    /// hands it on as outside. Without it: `redirectListenerFailed`, naming the line to add.
    @discardableResult
    public static func install(
        scheme: String, applicationID: String, executable: String, displayName: String
    ) throws(WebAuthError) -> URL {
        try validate(scheme: scheme)
        try validate(applicationID: applicationID)
        if let sandbox = WebviewEnvironment.current.sandbox, sandbox.kind == .flatpak {
            return try exportedDesktopFile(declaring: scheme, applicationID: applicationID, sandbox: sandbox)
        }
        if executable.isEmpty || executable.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw WebAuthError(.invalidParameters, "The executable for the URI scheme handler must be a program path without control characters.")
        }
        if executable.hasPrefix("/"), !FileManager.default.isExecutableFile(atPath: executable) {
            throw WebAuthError(.invalidParameters, "The scheme handler \"\(executable)\" is not an executable file.")
        }
        let file = desktopFileURL(applicationID: applicationID)
        let contentType = "x-scheme-handler/\(scheme)"
        // Missing folders are created 0700 (as the XDG Base Directory spec asks for the user's
        // data folders); folders that exist are left as they are: the applications folder is
        // shared with the desktop and other apps, so its mode is not this library's to change.
        if g_mkdir_with_parents(file.deletingLastPathComponent().path, 0o700) != 0 {
            let reason = String(cString: strerror(errno))
            throw registrationFailed("its folder could not be created (\(reason))", file, nil)
        }
        let keyFile = g_key_file_new()!
        defer { g_key_file_free(keyFile) }
        let group = "Desktop Entry"
        g_key_file_set_string(keyFile, group, "Type", "Application")
        g_key_file_set_string(keyFile, group, "Version", "1.0")
        g_key_file_set_string(keyFile, group, "Name", displayName)
        g_key_file_set_string(keyFile, group, "Exec", execLine(executable))
        g_key_file_set_string(keyFile, group, "MimeType", "\(contentType);")
        g_key_file_set_boolean(keyFile, group, "NoDisplay", 1)
        g_key_file_set_boolean(keyFile, group, "Terminal", 0)
        do {
            // 0600 whatever the umask (g_key_file_save_to_file would follow it: 0666 under umask
            // 000): the entry names a program the desktop starts with a URI from a web page.
            var length: gsize = 0
            let data = g_key_file_to_data(keyFile, &length, nil)
            defer { g_free(data) }
            _ = try withGError {
                g_file_set_contents_full(file.path, data, gssize(length), G_FILE_SET_CONTENTS_CONSISTENT, 0o600, $0)
            }
        } catch {
            throw registrationFailed("it could not be written (\(error.message))", file, error)
        }
        guard let info = g_desktop_app_info_new_from_filename(file.path).map(GObjectRef.init(adopting:)) else {
            throw registrationFailed("GIO could not read it back", file, nil)
        }
        do {
            _ = try withGError {
                g_app_info_set_as_default_for_type(wvh_app_info(info.pointer.objectAddress), contentType, $0)
            }
        } catch {
            throw registrationFailed("it could not be made the default for \(contentType) (\(error.message))", file, error)
        }
        return file
    }

    /// Removes the desktop entry and, when it is the scheme's default handler, the user's
    /// associations for `x-scheme-handler/<scheme>` (`g_app_info_reset_type_associations`).
    /// Removing what is not installed does nothing.
    ///
    /// - Throws: `invalidParameters` for a bad scheme or id; `redirectListenerFailed` when the
    ///   entry exists but cannot be removed.
    public static func uninstall(scheme: String, applicationID: String) throws(WebAuthError) {
        try validate(scheme: scheme)
        try validate(applicationID: applicationID)
        // In a Flatpak sandbox the exported desktop file is the app's own (uninstalled with it).
        if WebviewEnvironment.current.sandbox?.kind == .flatpak { return }
        let contentType = "x-scheme-handler/\(scheme)"
        if let info = g_app_info_get_default_for_type(contentType, 0).map(GObjectRef.init(adopting:)) {
            let id = g_app_info_get_id(info.pointer).map { String(cString: $0) }
            if id == "\(applicationID).desktop" { g_app_info_reset_type_associations(contentType) }
        }
        let file = desktopFileURL(applicationID: applicationID)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        do {
            try FileManager.default.removeItem(at: file)
        } catch {
            throw registrationFailed("it could not be removed (\(error.localizedDescription))", file, error)
        }
    }

    /// Where a Flatpak app's exported desktop files are, inside its sandbox.
    static let flatpakApplicationsFolder = URL(fileURLWithPath: "/app/share/applications")

    /// The app's exported desktop file, when it declares `x-scheme-handler/<scheme>`.
    static func exportedDesktopFile(declaring scheme: String, applicationID: String, sandbox: WebviewSandbox) throws(WebAuthError) -> URL {
        let id = sandbox.applicationID ?? applicationID
        let file = flatpakApplicationsFolder.appendingPathComponent("\(id).desktop")
        let contentType = "x-scheme-handler/\(scheme)"
        let howTo =
            "In a Flatpak the desktop reads only the app's exported desktop file: install \(file.path) from the manifest "
            + "with the line `MimeType=\(contentType);` (and `Exec=<your command> %u`), then rebuild the app."
        if id != applicationID {
            throw WebAuthError(
                .invalidParameters,
                "The application id \"\(applicationID)\" is not the Flatpak's (\(id)): Flatpak exports only desktop files named after "
                    + "the app id, so register the scheme under \(id). " + howTo)
        }
        let keyFile = g_key_file_new()!
        defer { g_key_file_free(keyFile) }
        do {
            _ = try withGError { g_key_file_load_from_file(keyFile, file.path, G_KEY_FILE_NONE, $0) }
        } catch {
            throw WebAuthError(
                .redirectListenerFailed,
                "The app's desktop file \(file.path) could not be read (\(error.message)), so the sign-in redirect to \(scheme): "
                    + "cannot reach the app. " + howTo,
                underlyingError: error)
        }
        var count: gsize = 0
        let types = g_key_file_get_string_list(keyFile, "Desktop Entry", "MimeType", &count, nil)
        defer { g_strfreev(types) }
        let declared = (0..<Int(count)).compactMap { types?[$0].map { String(cString: $0) } }
        guard declared.contains(contentType) else {
            throw WebAuthError(
                .redirectListenerFailed,
                "The app's desktop file \(file.path) does not declare \(contentType), so the sign-in redirect cannot reach the app. " + howTo)
        }
        return file
    }

    // MARK: - Private

    private static func validate(applicationID: String) throws(WebAuthError) {
        guard g_application_id_is_valid(applicationID) != 0 else {
            throw WebAuthError(
                .invalidParameters,
                "\"\(applicationID)\" is not a valid application id; use a reverse domain name such as "
                    + "com.example.App (the app's GApplication id).")
        }
    }

    private static func registrationFailed(_ reason: String, _ file: URL, _ error: (any Error)?) -> WebAuthError {
        WebAuthError(
            .redirectListenerFailed,
            "The app could not register itself for its sign-in redirect: the desktop entry \(file.path) \(reason).",
            underlyingError: error)
    }

    /// The `Exec` line that starts `executable` with the URI (`%u`).
    ///
    /// GIO checks that an entry's program exists before it expands field codes, so a program
    /// whose path holds `%` (written `%%`, as the Desktop Entry Specification asks) would never be
    /// found and the entry never read. Such a program is started through
    /// `/bin/sh -c 'exec "$0" "$@"' <program> <uri>`, which replaces itself with the program,
    /// with the same arguments; any other path is the line's program itself.
    static func execLine(_ executable: String) -> String {
        guard executable.contains("%") else { return "\(execArgument(executable)) %u" }
        return "/bin/sh -c \(execArgument("exec \"$0\" \"$@\"")) \(execArgument(executable)) %u"
    }

    /// One argument of an `Exec` line, quoted as the Desktop Entry Specification asks (before
    /// the key file's own escaping, which `g_key_file_set_string` adds): `%` doubled, and the
    /// argument in double quotes with `"`, `` ` ``, `$` and `\` escaped when it holds a reserved character.
    static func execArgument(_ argument: String) -> String {
        let escapedPercent = argument.replacingOccurrences(of: "%", with: "%%")
        let reserved = CharacterSet(charactersIn: " \t\n\"'\\><~|&;$*?#()`")
        guard escapedPercent.unicodeScalars.contains(where: reserved.contains) else { return escapedPercent }
        var quoted = "\""
        for character in escapedPercent {
            if "\"`$\\".contains(character) { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
