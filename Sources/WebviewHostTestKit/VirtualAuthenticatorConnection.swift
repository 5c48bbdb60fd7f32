import Synchronization

/// One opening of the device: reads CTAPHID reports from its socket, assembles messages, runs
/// them, and writes the answers. Used by its own thread only.
final class CTAPHIDConnection {
    let socket: SocketDescriptor
    let core: AuthenticatorCore
    private var channels: Set<UInt32> = []
    /// A report read while assembling another message that starts a message of its own.
    private var pushedBack: [UInt8]?
    /// The assertions GetNextAssertion still hands out, and the channel they belong to.
    var pendingAssertions: PendingAssertions?

    struct Message {
        var channel: UInt32
        var command: UInt8
        var payload: [UInt8]
    }

    init(socket: SocketDescriptor, core: AuthenticatorCore) {
        self.socket = socket
        self.core = core
    }

    func serve() {
        while let message = nextMessage() {
            guard handle(message) else { return }
        }
    }

    // MARK: Reading

    enum Received {
        case report([UInt8])
        case timedOut
        case closed
    }

    func receive(timeoutMilliseconds: Int32) -> Received {
        if let report = pushedBack {
            pushedBack = nil
            return .report(report)
        }
        switch socket.waitReadable(orStop: core.stopSignal, timeoutMilliseconds: timeoutMilliseconds) {
        case .stopped: return .closed
        case .timedOut: return .timedOut
        case .readable:
            guard let report = socket.read(count: CTAPHID.reportLength) else { return .closed }
            return .report(report)
        }
    }

    /// The next whole message for the authenticator; `nil` once the peer has gone or the
    /// authenticator stops. Framing errors are answered here.
    private func nextMessage() -> Message? {
        nextReport: while true {
            guard case .report(let report) = receive(timeoutMilliseconds: -1) else { return nil }
            let channel = Self.channel(of: report)
            // A continuation packet with no message begun: ignored (CTAP 2.1 §11.2.4).
            guard report[4] & 0x80 != 0 else { continue }
            let command = report[4] & 0x7f
            guard isOpen(channel, for: command) else {
                sendError(CTAPHID.Error.invalidChannel, on: channel)
                continue
            }
            if command == CTAPHID.Command.cancel {
                // Nothing is waiting here (a wait reads its own reports): counted, never answered.
                core.update { $0.observations.cancelsReceived += 1 }
                continue
            }
            let length = Int(report[5]) << 8 | Int(report[6])
            guard length <= CTAPHID.maximumMessageLength else {
                sendError(CTAPHID.Error.invalidLength, on: channel)
                continue
            }
            var payload = Array(report[7..<min(CTAPHID.reportLength, 7 + length)])
            var sequence: UInt8 = 0
            while payload.count < length {
                switch receive(timeoutMilliseconds: 500) {
                case .closed: return nil
                case .timedOut:
                    sendError(CTAPHID.Error.messageTimeout, on: channel)
                    continue nextReport
                case .report(let next):
                    let nextChannel = Self.channel(of: next)
                    if nextChannel != channel {
                        if next[4] & 0x80 != 0 { sendError(CTAPHID.Error.channelBusy, on: nextChannel) }
                        continue
                    }
                    if next[4] & 0x80 != 0 {
                        // A new initialization packet aborts this message; INIT resynchronizes.
                        if next[4] & 0x7f == CTAPHID.Command.initialize {
                            pushedBack = next
                        } else {
                            sendError(CTAPHID.Error.invalidSequence, on: channel)
                        }
                        continue nextReport
                    }
                    guard next[4] == sequence else {
                        sendError(CTAPHID.Error.invalidSequence, on: channel)
                        continue nextReport
                    }
                    sequence += 1
                    payload += next[5..<min(CTAPHID.reportLength, 5 + length - payload.count)]
                }
            }
            return Message(channel: channel, command: command, payload: payload)
        }
    }

    private func isOpen(_ channel: UInt32, for command: UInt8) -> Bool {
        if channel == CTAPHID.broadcastChannel { return command == CTAPHID.Command.initialize }
        return channels.contains(channel)
    }

    static func channel(of report: [UInt8]) -> UInt32 {
        UInt32(report[0]) << 24 | UInt32(report[1]) << 16 | UInt32(report[2]) << 8 | UInt32(report[3])
    }

    // MARK: Writing

    /// Writes one message as reports; false when the peer has gone.
    @discardableResult
    func send(_ command: UInt8, _ payload: [UInt8], on channel: UInt32) -> Bool {
        let channelBytes = (0..<4).map { UInt8(truncatingIfNeeded: channel >> (24 - 8 * UInt32($0))) }
        var report = channelBytes + [0x80 | command, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        var offset = min(payload.count, CTAPHID.reportLength - report.count)
        report += payload[0..<offset]
        var sequence: UInt8 = 0
        while true {
            report += [UInt8](repeating: 0, count: CTAPHID.reportLength - report.count)
            guard socket.write(report) else { return false }
            guard offset < payload.count else { return true }
            report = channelBytes + [sequence]
            let end = min(payload.count, offset + CTAPHID.reportLength - report.count)
            report += payload[offset..<end]
            offset = end
            sequence += 1
        }
    }

    func sendError(_ code: UInt8, on channel: UInt32) {
        core.update { $0.observations.framingErrors += 1 }
        send(CTAPHID.Command.error, [code], on: channel)
    }

    // MARK: Commands

    /// Runs one message; false when the connection should end.
    private func handle(_ message: Message) -> Bool {
        let protocolVersion = core.state.withLock { $0.options.protocolVersion }
        switch message.command {
        case CTAPHID.Command.initialize:
            guard message.payload.count == 8 else {
                sendError(CTAPHID.Error.invalidLength, on: message.channel)
                return true
            }
            let channel: UInt32
            if message.channel == CTAPHID.broadcastChannel {
                channel = core.update { state in
                    defer { state.nextChannel = state.nextChannel % 0xffff_fff0 + 1 }
                    return state.nextChannel
                }
                channels.insert(channel)
            } else {
                channel = message.channel
                if pendingAssertions?.channel == channel { pendingAssertions = nil }
            }
            let channelBytes = (0..<4).map { UInt8(truncatingIfNeeded: channel >> (24 - 8 * UInt32($0))) }
            let capabilities: UInt8 =
                switch protocolVersion {
                case .u2f: CTAPHID.Capability.wink
                case .ctap2: CTAPHID.Capability.wink | CTAPHID.Capability.cbor
                case .ctap2_1: CTAPHID.Capability.wink | CTAPHID.Capability.cbor | CTAPHID.Capability.noMessage
                }
            // Nonce, channel, CTAPHID protocol 2, device version 1.0.0, capabilities.
            return send(
                CTAPHID.Command.initialize, message.payload + channelBytes + [2, 1, 0, 0, capabilities], on: message.channel)
        case CTAPHID.Command.ping:
            return send(CTAPHID.Command.ping, message.payload, on: message.channel)
        case CTAPHID.Command.wink:
            return send(CTAPHID.Command.wink, [], on: message.channel)
        case CTAPHID.Command.msg where protocolVersion != .ctap2_1:
            guard let response = u2fResponse(to: message.payload, on: message.channel) else { return false }
            return send(CTAPHID.Command.msg, response, on: message.channel)
        case CTAPHID.Command.cbor where protocolVersion != .u2f:
            guard !message.payload.isEmpty else {
                sendError(CTAPHID.Error.invalidLength, on: message.channel)
                return true
            }
            guard let response = ctap2Response(to: message.payload, on: message.channel) else { return false }
            return send(CTAPHID.Command.cbor, response, on: message.channel)
        default:
            sendError(CTAPHID.Error.invalidCommand, on: message.channel)
            return true
        }
    }

    // MARK: User presence

    enum Presence {
        case granted, denied, cancelled, gone
    }

    /// Asks the person to touch the key, as ``VirtualAuthenticator/Options/userPresence`` says;
    /// while waiting, keeps the client informed and reads its reports (a cancel, another
    /// channel's request).
    func userPresence(on channel: UInt32) -> Presence {
        let mode = core.state.withLock { $0.options.userPresence }
        switch mode {
        case .immediate:
            return core.state.withLock { $0.options.isUserConsenting } ? .granted : .denied
        case .waitForTouch:
            core.update { state in
                state.observations.touchRequests += 1
                state.touchWaits += 1
                state.observations.isWaitingForTouch = true
            }
            defer {
                core.update { state in
                    state.touchWaits -= 1
                    state.observations.isWaitingForTouch = state.touchWaits > 0
                }
            }
            while true {
                let touched = core.update { state -> Bool in
                    guard state.pendingTouches > 0 else { return false }
                    state.pendingTouches -= 1
                    return true
                }
                if touched { return .granted }
                guard send(CTAPHID.Command.keepAlive, [CTAPHID.KeepAliveStatus.userPresenceNeeded], on: channel) else {
                    return .gone
                }
                switch readWhileBusy(on: channel, timeoutMilliseconds: 100) {
                case .cancelled: return .cancelled
                case .gone: return .gone
                case .nothing: continue
                }
            }
        case .neverAnswer:
            core.update { $0.observations.unansweredRequests += 1 }
            while true {
                // A cancel is counted and changes nothing: this key never answers.
                if case .gone = readWhileBusy(on: channel, timeoutMilliseconds: -1) { return .gone }
            }
        }
    }

    private enum BusyRead { case nothing, cancelled, gone }

    /// Reads what arrives while a request waits: a cancel for it, or a request on another
    /// channel (answered `ERR_CHANNEL_BUSY`).
    private func readWhileBusy(on channel: UInt32, timeoutMilliseconds: Int32) -> BusyRead {
        switch receive(timeoutMilliseconds: timeoutMilliseconds) {
        case .closed: return .gone
        case .timedOut: return .nothing
        case .report(let report):
            guard report[4] & 0x80 != 0 else { return .nothing }
            let reportChannel = Self.channel(of: report)
            if report[4] & 0x7f == CTAPHID.Command.cancel {
                core.update { $0.observations.cancelsReceived += 1 }
                return reportChannel == channel ? .cancelled : .nothing
            }
            sendError(CTAPHID.Error.channelBusy, on: reportChannel)
            return .nothing
        }
    }
}
