/// The two user scripts of ``WebAuthnBridge``: being written.
enum WebAuthnScripts {
    static let page = ""
    static let relay = ""
}
