#!/usr/bin/python3
"""An independent WebAuthn client and relying party for the virtual authenticator's tests.

python3-fido2 (Debian's, 0.9.x: run with /usr/bin/python3) talks CTAPHID to the authenticator's
Unix socket through a connection object of its own HID layer, and its Fido2Server checks the
attestation and assertion signatures. Prints one JSON object on standard output.

    webauthn_client.py SOCKET SCENARIO [ARGUMENTS...]

Scenarios: info, register-authenticate [--resident] [--pin PIN], resident, exclude,
unknown-allow, register, cancel, never-answer, pin WRONG RIGHT, wrong-pins WRONG COUNT, right-pin PIN,
assert-with CREDENTIAL_ID_HEX, set-pin PIN, malformed, u2f, ctap1, two-accounts,
user-verification.
"""

import json
import os
import select
import socket
import struct
import sys
import threading

from fido2 import cbor
from fido2.attestation import Attestation
from fido2.client import ClientError, Fido2Client
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin
from fido2.hid import CTAPHID, CtapHidDevice
from fido2.hid.base import CtapHidConnection, HidDescriptor
from fido2.server import Fido2Server
from fido2.webauthn import PublicKeyCredentialRpEntity

REPORT = 64
ORIGIN = "https://example.com"
RP = PublicKeyCredentialRpEntity("example.com", "Example")
# What a token is asked for (CTAP 2.1 requires permissions; 2.0's legacy call ignores them).
TOKEN_PERMISSIONS = (ClientPin.PERMISSION.MAKE_CREDENTIAL, "example.com")
USER = {"id": b"user-handle-0001", "name": "alice@example.com", "displayName": "Alice"}


class SocketConnection(CtapHidConnection):
    """CTAPHID reports over the authenticator's socket: 64 bytes each way, no report ID."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)

    def read_packet(self):
        data = b""
        while len(data) < REPORT:
            chunk = self.sock.recv(REPORT - len(data))
            if not chunk:
                raise OSError("the authenticator closed the connection")
            data += chunk
        return data

    def write_packet(self, data):
        self.sock.sendall(data)

    def close(self):
        self.sock.close()


def open_device(path):
    return CtapHidDevice(HidDescriptor(path, 0, 0, REPORT, REPORT), SocketConnection(path))


def verify_attestation(attestation_object, client_data_hash):
    Attestation.for_type(attestation_object.fmt)().verify(
        attestation_object.att_statement, attestation_object.auth_data, client_data_hash
    )


def server():
    return Fido2Server(RP, attestation="direct", verify_attestation=verify_attestation)


def error_of(error):
    """A ClientError or CtapError as JSON: the client's code and the authenticator's."""
    if isinstance(error, ClientError):
        cause = error.cause
        return {
            "error": error.code.name,
            "ctap": cause.code.name if isinstance(cause, CtapError) else None,
        }
    if isinstance(error, CtapError):
        return {"error": "CTAP", "ctap": error.code.name}
    return {"error": type(error).__name__, "message": str(error)}


def register(client, rp_server, resident=False, pin=None, credentials=None, event=None, on_keepalive=None, uv=None):
    options, state = rp_server.register_begin(
        USER,
        credentials=credentials,
        resident_key=resident,
        user_verification=uv or ("preferred" if pin else "discouraged"),
    )
    response = client.make_credential(options["publicKey"], pin=pin, event=event, on_keepalive=on_keepalive)
    auth_data = rp_server.register_complete(state, response.client_data, response.attestation_object)
    return auth_data, response.attestation_object


def authenticate(client, rp_server, credentials, allow=True, pin=None):
    options, state = rp_server.authenticate_begin(
        credentials if allow else None, user_verification="preferred" if pin else "discouraged"
    )
    selection = client.get_assertion(options["publicKey"], pin=pin)
    response = selection.get_response(0)
    rp_server.authenticate_complete(
        state,
        credentials,
        response.credential_id,
        response.client_data,
        response.authenticator_data,
        response.signature,
    )
    return response


def scenario_info(path, args):
    info = Ctap2(open_device(path)).get_info()
    return {
        "versions": info.versions,
        "aaguid": info.aaguid.hex(),
        "options": info.options,
        "pin_protocols": info.pin_uv_protocols,
        "transports": info.transports,
        "algorithms": [a["alg"] for a in info.algorithms or []],
        "max_msg_size": info.max_msg_size,
    }


def scenario_register_authenticate(path, args):
    resident = "--resident" in args
    pin = args[args.index("--pin") + 1] if "--pin" in args else None
    client, rp_server = Fido2Client(open_device(path), ORIGIN), server()
    auth_data, attestation = register(client, rp_server, resident=resident, pin=pin)
    credentials = [auth_data.credential_data]
    counts, user_handles, flags = [], [], []
    for _ in range(2):
        response = authenticate(client, rp_server, credentials, allow=not resident, pin=pin)
        counts.append(response.authenticator_data.counter)
        flags.append(response.authenticator_data.flags)
        user_handles.append(response.user_handle.hex() if response.user_handle else None)
    return {
        "verified": True,
        "fmt": attestation.fmt,
        "credential_id": auth_data.credential_data.credential_id.hex(),
        "aaguid": auth_data.credential_data.aaguid.hex(),
        "registration_flags": auth_data.flags,
        "registration_count": auth_data.counter,
        "assertion_flags": flags,
        "sign_counts": counts,
        "user_handles": user_handles,
    }


def scenario_register(path, args):
    client = Fido2Client(open_device(path), ORIGIN)
    try:
        auth_data, _ = register(client, server())
        return {"registered": auth_data.credential_data.credential_id.hex()}
    except Exception as error:
        return error_of(error)


def scenario_exclude(path, args):
    client, rp_server = Fido2Client(open_device(path), ORIGIN), server()
    auth_data, _ = register(client, rp_server)
    try:
        register(client, rp_server, credentials=[auth_data.credential_data])
        return {"registered_again": True}
    except Exception as error:
        return error_of(error)


def scenario_unknown_allow(path, args):
    from fido2.webauthn import PublicKeyCredentialDescriptor

    client, rp_server = Fido2Client(open_device(path), ORIGIN), server()
    unknown = PublicKeyCredentialDescriptor("public-key", os.urandom(32))
    try:
        authenticate(client, rp_server, [unknown])
        return {"authenticated": True}
    except Exception as error:
        return error_of(error)


def scenario_cancel(path, args):
    client = Fido2Client(open_device(path), ORIGIN)
    event = threading.Event()
    statuses = []

    def on_keepalive(status):
        statuses.append(int(status))
        event.set()  # the person gives up as soon as the key asks for a touch

    try:
        register(client, server(), event=event, on_keepalive=on_keepalive)
        return {"registered": True, "keepalives": statuses}
    except Exception as error:
        result = error_of(error)
        result["keepalives"] = statuses
        return result


def scenario_pin(path, args):
    wrong, right = args[0], args[1]
    ctap2 = Ctap2(open_device(path))
    client_pin = ClientPin(ctap2)
    result = {"protocol": client_pin.protocol.VERSION, "retries_before": client_pin.get_pin_retries()[0]}
    try:
        client_pin.get_pin_token(wrong, *TOKEN_PERMISSIONS)
        result["wrong"] = "accepted"
    except CtapError as error:
        result["wrong"] = error.code.name
    result["retries_after_wrong"] = client_pin.get_pin_retries()[0]
    token = client_pin.get_pin_token(right, *TOKEN_PERMISSIONS)
    result["token_length"] = len(token)
    result["retries_after_right"] = client_pin.get_pin_retries()[0]
    client, rp_server = Fido2Client(ctap2.device, ORIGIN), server()
    auth_data, _ = register(client, rp_server, pin=right)
    result["registration_flags"] = auth_data.flags
    response = authenticate(client, rp_server, [auth_data.credential_data], pin=right)
    result["assertion_flags"] = response.authenticator_data.flags
    try:  # straight to the authenticator: python3-fido2's client would refuse before asking it
        ctap2.make_credential(b"\0" * 32, {"id": "example.com"}, {"id": b"x"}, [{"type": "public-key", "alg": -7}])
        result["without_pin"] = "registered"
    except CtapError as error:
        result["without_pin"] = error.code.name
    return result


def scenario_wrong_pins(path, args):
    wrong, count = args[0], int(args[1])
    client_pin = ClientPin(Ctap2(open_device(path)))
    errors = []
    for _ in range(count):
        try:
            client_pin.get_pin_token(wrong, *TOKEN_PERMISSIONS)
            errors.append("accepted")
        except CtapError as error:
            errors.append(error.code.name)
    return {"errors": errors, "retries": client_pin.get_pin_retries()[0]}


def scenario_right_pin(path, args):
    client_pin = ClientPin(Ctap2(open_device(path)))
    try:
        token = client_pin.get_pin_token(args[0], *TOKEN_PERMISSIONS)
        return {"token_length": len(token), "retries": client_pin.get_pin_retries()[0]}
    except CtapError as error:
        return {"error": "CTAP", "ctap": error.code.name, "retries": client_pin.get_pin_retries()[0]}


def scenario_set_pin(path, args):
    ctap2 = Ctap2(open_device(path))
    client_pin = ClientPin(ctap2)
    client_pin.set_pin(args[0])
    token = client_pin.get_pin_token(args[0], *TOKEN_PERMISSIONS)
    client_pin.change_pin(args[0], args[0] + "9")
    return {
        "protocol": client_pin.protocol.VERSION,
        "token_length": len(token),
        "client_pin": ctap2.get_info().options.get("clientPin"),
    }


def scenario_assert_with(path, args):
    from fido2.webauthn import PublicKeyCredentialDescriptor

    client = Fido2Client(open_device(path), ORIGIN)
    options, _ = server().authenticate_begin(
        [PublicKeyCredentialDescriptor("public-key", bytes.fromhex(args[0]))], user_verification="discouraged"
    )
    response = client.get_assertion(options["publicKey"]).get_response(0)
    return {
        "authenticator_data": bytes(response.authenticator_data).hex(),
        "client_data_hash": response.client_data.hash.hex(),
        "signature": response.signature.hex(),
        "counter": response.authenticator_data.counter,
    }


def scenario_u2f(path, args):
    client, rp_server = Fido2Client(open_device(path), ORIGIN), server()
    client.ctap1_poll_delay = 0.05
    auth_data, attestation = register(client, rp_server)
    credentials = [auth_data.credential_data]
    counts = [authenticate(client, rp_server, credentials).authenticator_data.counter for _ in range(2)]
    return {"verified": True, "fmt": attestation.fmt, "sign_counts": counts, "uses_ctap2": hasattr(client, "ctap2")}


class RawChannel:
    """Raw CTAPHID reports, for what a well-behaved client never sends."""

    def __init__(self, path):
        self.connection = SocketConnection(path)
        self.connection.sock.settimeout(5)
        nonce = os.urandom(8)
        self.send_message(0xFFFFFFFF, CTAPHID.INIT, nonce)
        channel, command, payload = self.read_message()
        assert command == CTAPHID.INIT and payload[:8] == nonce
        self.cid = struct.unpack(">I", payload[8:12])[0]

    def send_report(self, report):
        self.connection.write_packet(report.ljust(REPORT, b"\0"))

    def send_message(self, cid, command, payload, length=None):
        length = len(payload) if length is None else length
        self.send_report(struct.pack(">IBH", cid, 0x80 | command, length) + payload[:57])
        rest, sequence = payload[57:], 0
        while rest:
            self.send_report(struct.pack(">IB", cid, sequence) + rest[:59])
            rest, sequence = rest[59:], sequence + 1

    def read_message(self):
        report = self.connection.read_packet()
        cid, command, length = struct.unpack(">IBH", report[:7])
        payload = report[7 : 7 + length]
        sequence = 0
        while len(payload) < length:
            report = self.connection.read_packet()
            assert report[4] == sequence
            payload += report[5 : 5 + length - len(payload)]
            sequence += 1
        return cid, command & 0x7F, payload

    def answer(self):
        """The answer as text: `error:0b` for CTAPHID_ERROR, `cbor:12` for a CBOR status."""
        cid, command, payload = self.read_message()
        while command == CTAPHID.KEEPALIVE:
            cid, command, payload = self.read_message()
        if command == CTAPHID.ERROR:
            return "error:%02x" % payload[0]
        if command == CTAPHID.CBOR:
            return "cbor:%02x" % payload[0]
        return "%02x:%s" % (command, payload.hex())

    def quiet(self, seconds):
        return not select.select([self.connection.sock], [], [], seconds)[0]


def scenario_malformed(path, args):
    raw = RawChannel(path)
    cid = raw.cid
    results = {}

    def cbor_case(name, payload):
        raw.send_message(cid, CTAPHID.CBOR, payload)
        results[name] = raw.answer()

    cbor_case("indefinite_length", b"\x01\xff")
    cbor_case("truncated_map", b"\x01\xa1\x01")
    cbor_case("not_a_map", b"\x01\x80")
    cbor_case("missing_parameters", b"\x01\xa0")
    cbor_case("too_deep", b"\x01" + b"\x81" * 200 + b"\x00")
    cbor_case("huge_map_length", b"\x01\xbb" + b"\xff" * 8)
    cbor_case("huge_byte_string", b"\x01\xa1\x01\x5b" + b"\x7f" + b"\xff" * 7)
    cbor_case("wrong_types", b"\x02\xa2\x01\x05\x02\x05")
    cbor_case("trailing_bytes", b"\x04\xa0\x00")
    cbor_case("unknown_command", b"\x55")
    cbor_case("tag", b"\x01\xc1\x00")
    cbor_case("float", b"\x01\xfa\x00\x00\x00\x00")
    cbor_case("unsupported_algorithm", b"\x01" + cbor.encode({
        1: b"\0" * 32, 2: {"id": "a.com"}, 3: {"id": b"\x0a"}, 4: [{"alg": -257, "type": "public-key"}],
    }))

    raw.send_message(cid, 0x22, b"")
    results["unknown_hid_command"] = raw.answer()
    raw.send_message(0x12345678, CTAPHID.PING, b"hello")
    results["unknown_channel"] = raw.answer()
    raw.send_message(0xFFFFFFFF, CTAPHID.PING, b"hello")
    results["broadcast_ping"] = raw.answer()
    raw.send_message(cid, CTAPHID.PING, b"x" * 57, length=0xFFFF)
    results["length_too_large"] = raw.answer()
    raw.send_message(cid, CTAPHID.INIT, b"abcd")
    results["short_init_nonce"] = raw.answer()
    raw.send_message(cid, CTAPHID.CBOR, b"")
    results["empty_cbor"] = raw.answer()
    raw.send_report(struct.pack(">IBH", cid, 0x80 | CTAPHID.PING, 100) + b"y" * 57)
    raw.send_report(struct.pack(">IB", cid, 5) + b"y" * 59)
    results["wrong_sequence"] = raw.answer()
    raw.send_report(struct.pack(">IBH", cid, 0x80 | CTAPHID.PING, 100) + b"z" * 57)
    results["message_timeout"] = raw.answer()
    raw.send_report(struct.pack(">IB", cid, 0) + b"w" * 59)  # a continuation nobody began
    results["stray_continuation_ignored"] = raw.quiet(0.3)
    raw.send_message(cid, CTAPHID.CANCEL, b"")
    results["idle_cancel_ignored"] = raw.quiet(0.3)
    raw.send_message(cid, CTAPHID.PING, b"x" * 200)
    cid_back, command, payload = raw.read_message()
    results["long_ping"] = payload == b"x" * 200
    raw.send_message(cid, CTAPHID.PING, b"still alive")
    _, _, payload = raw.read_message()
    results["alive"] = payload == b"still alive"
    return results


def scenario_never_answer(path, args):
    raw = RawChannel(path)
    request = b"\x01" + cbor.encode({
        1: b"\0" * 32, 2: {"id": "example.com"}, 3: {"id": b"\x0a"}, 4: [{"alg": -7, "type": "public-key"}],
    })
    raw.send_message(raw.cid, CTAPHID.CBOR, request)
    quiet_before = raw.quiet(0.5)
    raw.send_message(raw.cid, CTAPHID.CANCEL, b"")
    quiet_after = raw.quiet(0.5)
    return {"quiet_before_cancel": quiet_before, "quiet_after_cancel": quiet_after}


def scenario_two_accounts(path, args):
    """Two resident credentials for the site; an assertion without allow list offers both
    (numberOfCredentials, then authenticatorGetNextAssertion), each verified by the server."""
    client, rp_server = Fido2Client(open_device(path), ORIGIN), server()
    credentials = []
    for index, name in enumerate(["alice", "bob"]):
        options, state = rp_server.register_begin(
            {"id": bytes([index + 1]), "name": name, "displayName": name.title()},
            resident_key=True, user_verification="discouraged",
        )
        response = client.make_credential(options["publicKey"])
        credentials.append(rp_server.register_complete(state, response.client_data, response.attestation_object).credential_data)
    options, state = rp_server.authenticate_begin(user_verification="discouraged")
    selection = client.get_assertion(options["publicKey"])
    assertions = selection.get_assertions()
    users = []
    for index in range(len(assertions)):
        response = selection.get_response(index)
        rp_server.authenticate_complete(
            state, credentials, response.credential_id, response.client_data, response.authenticator_data, response.signature
        )
        users.append({"id": response.user_handle.hex(), "name": assertions[index].user.get("name")})
    return {"number_of_credentials": assertions[0].number_of_credentials, "users": users}


def scenario_user_verification(path, args):
    """Built-in user verification: the uv option, and (CTAP 2.1) a token by UV."""
    ctap2 = Ctap2(open_device(path))
    result = {}
    client, rp_server = Fido2Client(ctap2.device, ORIGIN), server()
    try:
        auth_data, _ = register(client, rp_server, uv="required")
        result["uv_option"] = auth_data.flags
    except Exception as error:
        result["uv_option"] = error_of(error)
    if ctap2.info.options.get("pinUvAuthToken"):
        client_pin = ClientPin(ctap2)
        try:
            token = client_pin.get_uv_token(ClientPin.PERMISSION.MAKE_CREDENTIAL, "example.com")
            pin_auth = client_pin.protocol.authenticate(token, b"\0" * 32)
            response = ctap2.make_credential(
                b"\0" * 32, {"id": "example.com"}, {"id": b"x"}, [{"type": "public-key", "alg": -7}],
                pin_uv_param=pin_auth, pin_uv_protocol=client_pin.protocol.VERSION,
            )
            result["uv_token"] = response.auth_data.flags
            result["uv_retries"] = client_pin.get_uv_retries()[0]
        except CtapError as error:
            result["uv_token"] = error.code.name
    return result


def scenario_ctap1(path, args):
    """U2F APDUs straight (python3-fido2's Ctap1), on a CTAP 2.0 key that also speaks U2F."""
    from hashlib import sha256

    from fido2.ctap1 import ApduError, Ctap1

    ctap1 = Ctap1(open_device(path))
    app_param, client_param = sha256(b"example.com").digest(), os.urandom(32)
    registration = ctap1.register(client_param, app_param)
    registration.verify(app_param, client_param)
    result = {"version": ctap1.get_version(), "key_handle_length": len(registration.key_handle)}

    def status(call):
        try:
            call()
            return "9000"
        except ApduError as error:
            return "%04x" % error.code

    result["check_only_known"] = status(lambda: ctap1.authenticate(client_param, app_param, registration.key_handle, True))
    result["check_only_unknown"] = status(lambda: ctap1.authenticate(client_param, app_param, os.urandom(64), True))
    result["other_application"] = status(
        lambda: ctap1.authenticate(client_param, os.urandom(32), registration.key_handle, True))
    signature = ctap1.authenticate(client_param, app_param, registration.key_handle)
    signature.verify(app_param, client_param, registration.public_key)
    result["counter"] = signature.counter
    result["user_presence"] = signature.user_presence
    result["unknown_instruction"] = status(lambda: ctap1.send_apdu(ins=0x55))
    result["wrong_class"] = status(lambda: ctap1.send_apdu(cla=0x80, ins=0x03))
    result["short_register"] = status(lambda: ctap1.send_apdu(ins=0x01, data=b"x" * 10))
    return result


SCENARIOS = {
    "ctap1": scenario_ctap1,
    "user-verification": scenario_user_verification,
    "two-accounts": scenario_two_accounts,
    "never-answer": scenario_never_answer,
    "info": scenario_info,
    "register-authenticate": scenario_register_authenticate,
    "resident": lambda path, args: scenario_register_authenticate(path, ["--resident"] + args),
    "register": scenario_register,
    "exclude": scenario_exclude,
    "unknown-allow": scenario_unknown_allow,
    "cancel": scenario_cancel,
    "pin": scenario_pin,
    "wrong-pins": scenario_wrong_pins,
    "right-pin": scenario_right_pin,
    "set-pin": scenario_set_pin,
    "assert-with": scenario_assert_with,
    "u2f": scenario_u2f,
    "malformed": scenario_malformed,
}


def main():
    path, scenario, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(SCENARIOS[scenario](path, args), default=str))


if __name__ == "__main__":
    main()
