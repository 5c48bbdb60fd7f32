internal import CQREncode
import Foundation
import WebviewHost

#if canImport(Glibc)
    import Glibc
#endif

/// Shows a device code where ``DeviceCodeParameters/display`` says, and closes it afterwards.
@MainActor
enum DeviceCodePresentation {
    /// Shows `challenge`; `cancel` when the person cancels in the window. Returns what closes it.
    static func show(_ challenge: DeviceCodeChallenge, display: DeviceCodeDisplay, cancel: @escaping @MainActor () -> Void)
        -> (@MainActor () -> Void)
    {
        switch display {
        case .app(let show):
            show(challenge)
            return {}
        case .terminal:
            DeviceCodeTerminal.write(challenge, to: STDERR_FILENO)
            return {}
        case .window(let parent):
            return window(challenge, parent: parent, cancel: cancel) ?? terminal(challenge)
        case .automatic:
            if WebviewEnvironment.current.hasDisplay, let close = window(challenge, parent: nil, cancel: cancel) { return close }
            return terminal(challenge)
        }
    }

    private static func terminal(_ challenge: DeviceCodeChallenge) -> @MainActor () -> Void {
        DeviceCodeTerminal.write(challenge, to: STDERR_FILENO)
        return {}
    }

    private static func window(_ challenge: DeviceCodeChallenge, parent: WindowHandle?, cancel: @escaping @MainActor () -> Void)
        -> (@MainActor () -> Void)?
    {
        guard let present = DeviceCodeWindows.present else { return nil }
        let link = challenge.verificationURIComplete ?? challenge.verificationURI
        let content = DeviceCodeWindowContent(
            userCode: challenge.userCode, link: link, instructions: challenge.instructions, expiresOn: challenge.expiresOn,
            qrCode: QRMatrix(link.absoluteString)?.rows)
        return present(content, parent, cancel)
    }
}

/// A QR code (libqrencode, error correction M), row by row, `true` for a dark module.
struct QRMatrix {
    let rows: [[Bool]]

    init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        rows = (0..<width).map { y in (0..<width).map { x in code.pointee.data[y * width + x] & 1 == 1 } }
    }

    var width: Int { rows.count }

    /// The code in Unicode half blocks, two rows a line, with a quiet zone of 2 modules (light
    /// text on dark terminals and dark on light alike: it is drawn as blocks on spaces, and the
    /// quiet zone is part of it).
    func halfBlocks(quietZone: Int = 2) -> [String] {
        let size = width + 2 * quietZone
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (x, y) = (x - quietZone, y - quietZone)
            return x >= 0 && y >= 0 && x < width && y < width && rows[y][x]
        }
        // Inverted (light modules drawn), so the code reads on a dark terminal background.
        return stride(from: 0, to: size, by: 2).map { y in
            String((0..<size).map { x -> Character in
                switch (!dark(x, y), y + 1 < size && !dark(x, y + 1)) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }
    }
}

/// The device code in a terminal (or a log, when standard error is not one).
enum DeviceCodeTerminal {
    /// The lines written for `challenge`: the instructions, the QR code of the link when it fits
    /// in `columns` and the output is a terminal, the code and the time left.
    static func lines(_ challenge: DeviceCodeChallenge, isTerminal: Bool, columns: Int = 80, now: Date = Date()) -> [String] {
        var lines = ["", challenge.instructions, ""]
        let link = challenge.verificationURIComplete ?? challenge.verificationURI
        if isTerminal, let qr = QRMatrix(link.absoluteString), qr.width + 4 <= columns {
            lines.append(ShownText.tr("device code", "Or scan this code with your phone's camera") + ":")
            lines += qr.halfBlocks()
            lines.append("")
        }
        lines.append(ShownText.tr("device code", "Code: {code}", ["code": challenge.userCode]))
        lines.append(ShownText.tr("device code", "Link: {link}", ["link": challenge.verificationURI.absoluteString]))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: ShownText.language())
        formatter.dateStyle = .none
        formatter.timeStyle = .short
        lines.append(ShownText.tr("device code", "This code expires at {time}.", ["time": formatter.string(from: challenge.expiresOn)]))
        if let message = challenge.message, !message.isEmpty { lines.append(message) }
        lines.append("")
        return lines
    }

    static func write(_ challenge: DeviceCodeChallenge, to fd: Int32) {
        let isTerminal = isatty(fd) != 0
        var size = winsize()
        let columns = isTerminal && ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        let text = lines(challenge, isTerminal: isTerminal, columns: columns).joined(separator: "\n") + "\n"
        FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(Data(text.utf8))
    }
}
