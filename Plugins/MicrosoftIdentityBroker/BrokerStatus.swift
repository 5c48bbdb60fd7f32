import Foundation
import SignIn
import WebviewHost

/// The broker's error statuses: `brokerTokenResponse.error.status`, an integer in MSALRuntime's
/// numbering (`MSALRUNTIME_RESPONSE_STATUS`, the same in pymsalruntime and MSAL.NET's
/// `WamAdapters.cs`). Real answers carry it as a number: `"status": 2` with
/// `"api_status_code": "StatusInternal::InteractionRequired"` in broker 2.5.2's telemetry
/// (siemens/linux-entra-sso issue 129), `"status": 2` for a `UiRequiredException` in 2.0.1's
/// (issue 114). Names (`"interaction_required"`, `"InteractionRequired"`) are still read, for
/// brokers and compatible brokers that send them.
enum BrokerStatus: Int, CaseIterable {
    case unexpected = 0
    case reserved = 1
    case interactionRequired = 2
    case noNetwork = 3
    case networkTemporarilyUnavailable = 4
    case serverTemporarilyUnavailable = 5
    case apiContractViolation = 6
    case userCanceled = 7
    case applicationCanceled = 8
    case incorrectConfiguration = 9
    case insufficientBuffer = 10
    case authorityUntrusted = 11
    case userSwitch = 12
    case accountUnusable = 13
    case userDataRemovalRequired = 14
    case keyNotFound = 15
    case accountNotFound = 16
    case transientError = 17
    case accountSwitch = 18
    case requiredBrokerMissing = 19
    case deviceNotRegistered = 20
    case fallbackToNativeMsal = 21

    /// MSALRuntime's name (`InteractionRequired`).
    var name: String {
        let raw = String(describing: self)
        return raw.prefix(1).uppercased() + raw.dropFirst()
    }

    /// A status as the broker sent it: a number (or a numeric string), else a name matched loosely
    /// (`interaction_required`, `InteractionRequired`, `user_cancelled`).
    init?(_ value: Any?) {
        if let number = value as? NSNumber, !(value is Bool) {
            self.init(rawValue: number.intValue)
            return
        }
        guard let text = value as? String, !text.isEmpty else { return nil }
        if let number = Int(text) {
            self.init(rawValue: number)
            return
        }
        let key = text.lowercased().filter(\.isLetter)
        if let exact = Self.allCases.first(where: { $0.name.lowercased() == key }) {
            self = exact
            return
        }
        // Names brokers and older clients used for the same conditions.
        switch key {
        case _ where key.contains("cancel"): self = key.contains("app") ? .applicationCanceled : .userCanceled
        case _ where key.contains("interaction") || key.contains("uirequired") || key.contains("loginrequired"): self = .interactionRequired
        case _ where key.contains("noaccount"): self = .accountNotFound
        case _ where key.contains("unavailable") || key.contains("notavailable") || key.contains("unreachable"): self = .requiredBrokerMissing
        default: return nil
        }
    }

    /// What an app can do about it, as a ``WebviewHost/WebAuthError`` code.
    var code: WebAuthError.Code {
        switch self {
        case .interactionRequired, .accountUnusable, .accountNotFound, .userSwitch, .accountSwitch, .userDataRemovalRequired:
            .interactionRequired
        case .userCanceled: .userCanceled
        case .applicationCanceled: .canceled
        case .noNetwork, .networkTemporarilyUnavailable: .network
        case .apiContractViolation: .protocolMismatch
        case .incorrectConfiguration, .authorityUntrusted: .invalidParameters
        case .requiredBrokerMissing, .deviceNotRegistered, .fallbackToNativeMsal: .brokerUnavailable
        case .unexpected, .reserved, .serverTemporarilyUnavailable, .insufficientBuffer, .keyNotFound, .transientError: .server
        }
    }

    /// The sentence of the error's message.
    var sentence: String {
        switch code {
        case .interactionRequired: "The identity broker needs the person to sign in (\(name)); call acquireToken."
        case .userCanceled: "The sign-in was cancelled in the identity broker's window (\(name))."
        case .canceled: "The identity broker ended the sign-in because the app cancelled it (\(name))."
        case .network: "The identity broker cannot reach the network (\(name)); try again when the machine is online."
        case .protocolMismatch: "The identity broker refused the request as not in its protocol (\(name))."
        case .invalidParameters: "The identity broker refused the app's configuration (\(name)): check the client ID, redirect URI and authority."
        case .brokerUnavailable: "The identity broker cannot serve this request (\(name)); sign in without it."
        default: "The identity broker could not get a token (\(name))."
        }
    }
}

extension BrokerJSON {
    /// The broker's error in a response (`brokerTokenResponse.error`, or a top-level `error`), as
    /// a ``WebviewHost/WebAuthError``, or `nil` when there is none. Only the numbers and names are
    /// read into the message; the broker's `context` (which may name the person) goes to the
    /// underlying ``SignIn/TokenBrokerError`` only.
    static func error(in response: Object, broker: String) -> WebAuthError? {
        let raw = (response["brokerTokenResponse"] as? Object)?["error"] ?? response["error"]
        guard let raw, !(raw is NSNull) else { return nil }
        let object = raw as? Object ?? [:]
        let statusValue: Any? = object.isEmpty ? raw : object["status"]
        let details = TokenBrokerError(
            broker: broker, status: text(statusValue), subStatus: text(object["subStatus"]), context: text(object["context"]),
            errorCode: text(object["errorCode"]), tag: text(object["tag"]))
        // A known status decides; a consent sub-status or error code says more than "interaction".
        let status = BrokerStatus(statusValue)
        let extra = [text(object["subStatus"]), text(object["errorCode"]), text(statusValue)].compactMap { $0?.lowercased() }
        if extra.contains(where: { $0.contains("consent") || $0 == "65001" }) {
            return WebAuthError(
                .consentRequired, "The identity broker needs consent to the requested scopes (\(status?.name ?? "consent")); sign in interactively.",
                underlyingError: details)
        }
        guard let status else {
            let shown = details.status ?? details.errorCode ?? "no status"
            return WebAuthError(
                .server, "The identity broker refused the request (\(shown)).", serverError: .init(error: shown), underlyingError: details)
        }
        if status.code == .server {
            return WebAuthError(.server, status.sentence, serverError: .init(error: status.name), underlyingError: details)
        }
        return WebAuthError(status.code, status.sentence, underlyingError: details)
    }
}
