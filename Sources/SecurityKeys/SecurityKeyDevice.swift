internal import CFIDO2
public import Foundation

/// A security key the library can talk to: one plugged in (a USB HID path), or a virtual
/// authenticator's socket named in `WEBVIEWHOST_VIRTUAL_AUTHENTICATORS`.
public struct SecurityKeyDevice: Hashable, Sendable, CustomStringConvertible {
    /// hidraw path (`/dev/hidraw3`), or the virtual authenticator's socket path.
    public let path: String
    public let manufacturer: String
    public let product: String
    /// A test's virtual authenticator, not a key a person holds.
    public let isVirtual: Bool

    public init(path: String, manufacturer: String, product: String, isVirtual: Bool) {
        self.path = path
        self.manufacturer = manufacturer
        self.product = product
        self.isVirtual = isVirtual
    }

    public var description: String { "\(manufacturer) \(product) (\(path))" }

    /// The keys there now. With `WEBVIEWHOST_VIRTUAL_AUTHENTICATORS` set, only its sockets (the
    /// keys plugged in are not looked at, so a test never touches a person's key); otherwise
    /// libfido2's list of FIDO HID devices (`fido_dev_info_manifest`).
    public static func connected(environment: [String: String] = ProcessInfo.processInfo.environment) -> [SecurityKeyDevice] {
        let virtual = VirtualAuthenticatorSockets.paths(in: environment)
        if !virtual.isEmpty {
            VirtualAuthenticatorSockets.warnOnce(virtual)
            return virtual.map { SecurityKeyDevice(path: $0, manufacturer: "WebviewHost", product: "Virtual authenticator", isVirtual: true) }
        }
        FIDOLibrary.initialize()
        let capacity = 64
        guard let list = fido_dev_info_new(capacity) else { return [] }
        var list_: OpaquePointer? = list
        defer { fido_dev_info_free(&list_, capacity) }
        var found = 0
        guard fido_dev_info_manifest(list, capacity, &found) == FIDO_OK else { return [] }
        return (0..<found).compactMap { index in
            guard let info = fido_dev_info_ptr(list, index), let path = fido_dev_info_path(info) else { return nil }
            return SecurityKeyDevice(
                path: String(cString: path),
                manufacturer: fido_dev_info_manufacturer_string(info).map { String(cString: $0) } ?? "",
                product: fido_dev_info_product_string(info).map { String(cString: $0) } ?? "",
                isVirtual: false)
        }
    }
}

/// `fido_init`, once per process.
enum FIDOLibrary {
    private static let initialized: Bool = {
        fido_init(0)
        return true
    }()

    static func initialize() { _ = initialized }

    /// libfido2's name for a status (`fido_strerr`).
    static func name(_ status: Int32) -> String { String(cString: fido_strerr(status)) }
}

extension SecurityKeyDevice {
    /// The `help` line (`WEBVIEW_HOST_PROVIDER=help`): whether a page's WebAuthn call can be
    /// answered in the view now, and with what.
    public static func helpNote(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let prefix = "passkeys and security keys (WebAuthn): "
        let virtual = VirtualAuthenticatorSockets.paths(in: environment)
        if !virtual.isEmpty {
            return prefix + "answered in the view with the virtual authenticators at \(virtual.joined(separator: ", ")) "
                + "(\(VirtualAuthenticatorSockets.environmentVariable): for tests only; keys plugged in are not used)"
        }
        let keys = connected(environment: environment)
        if keys.isEmpty {
            return prefix + "no security key is plugged in now (libfido2 sees none): a page's WebAuthn call moves the sign-in "
                + "to the browser, where phones and platform passkeys answer"
        }
        let names = keys.map { "\($0.manufacturer) \($0.product)".trimmingCharacters(in: .whitespaces) }
        return prefix + "answered in the view with the security keys plugged in now (libfido2): \(names.joined(separator: ", ")); "
            + "phones and platform passkeys: in the browser"
    }
}
