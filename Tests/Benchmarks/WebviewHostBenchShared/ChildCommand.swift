import Foundation

/// The child processes' command lines, the same in the GTK 3 and the GTK 4 binary:
/// `child <variant> <page> <redirect>` and `sequential <variant> <sessions> <page> <redirect>`,
/// where the variant may carry the binary's `Toolkit.suffix` (`own-window-gtk4`).
enum ChildCommand {
    /// Runs the child `arguments` name and exits; returns when they name none.
    @MainActor
    static func run(_ arguments: [String]) {
        if arguments.first == "child", arguments.count == 4, let page = URL(string: arguments[2]),
            let redirect = URL(string: arguments[3])
        {
            let variant = variantName(arguments[1])
            if variant == "swift-floor" { Child.runSwiftFloor(page: page, redirect: redirect) }
            if variant == "page" { Child.runWebAuthn(page: page, redirect: redirect) }
            Child.runEmbedded(
                ownWindow: variant.hasPrefix("own-window"), warm: variant == "own-window-warm", page: page, redirect: redirect)
        }
        if arguments.first == "sequential", arguments.count == 5, let sessions = Int(arguments[2]),
            let page = URL(string: arguments[3]), let redirect = URL(string: arguments[4])
        {
            let variant = variantName(arguments[1])
            SequentialChild.run(
                ownWindow: variant.hasPrefix("own-window"), withCertificate: variant == "own-window-certificate",
                sessions: sessions, page: page, redirect: redirect)
        }
    }

    /// `variant` without this binary's toolkit suffix.
    static func variantName(_ variant: String) -> String {
        guard !Toolkit.suffix.isEmpty, variant.hasSuffix(Toolkit.suffix) else { return variant }
        return String(variant.dropLast(Toolkit.suffix.count))
    }
}
