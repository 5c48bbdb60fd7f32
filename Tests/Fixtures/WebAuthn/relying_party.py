#!/usr/bin/python3
"""A relying party that is not ours: python3-fido2's Fido2Server checks what the library's
ceremony returned, as a site's server would.

Reads one JSON object (the second argument, else stdin), prints one JSON object. Byte fields are
base64url.

  relying_party.py register      {rpId, origin, challenge, userVerification,
                                  clientDataJSON, attestationObject}
      -> {ok, format, attestationType, credentialData, credentialId, flags, signCount}
  relying_party.py authenticate  {rpId, origin, challenge, userVerification, credentialData,
                                  credentialId, clientDataJSON, authenticatorData, signature}
      -> {ok, flags, signCount}

A check that fails gives {ok: false, error}. The attestation statement is verified by its
format's verifier (packed, fido-u2f, none), not ignored.
"""
import json
import sys

from fido2.attestation import Attestation
from fido2.ctap2 import AttestationObject, AttestedCredentialData, AuthenticatorData
from fido2.server import Fido2Server
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import PublicKeyCredentialRpEntity
from fido2.client import ClientData


def main():
    command = sys.argv[1]
    request = json.loads(sys.argv[2]) if len(sys.argv) > 2 else json.load(sys.stdin)
    checked = {}

    def verify_attestation(attestation_object, client_data_hash):
        verifier = Attestation.for_type(attestation_object.fmt)()
        result = verifier.verify(attestation_object.att_statement, attestation_object.auth_data, client_data_hash)
        checked["attestationType"] = result.attestation_type.name

    server = Fido2Server(
        PublicKeyCredentialRpEntity(request["rpId"], "Relying party"),
        attestation="direct",
        verify_origin=lambda origin: origin == request["origin"],
        verify_attestation=verify_attestation,
    )
    state = {"challenge": request["challenge"], "user_verification": request.get("userVerification")}
    client_data = ClientData(websafe_decode(request["clientDataJSON"]))
    try:
        if command == "register":
            attestation = AttestationObject(websafe_decode(request["attestationObject"]))
            auth_data = server.register_complete(state, client_data, attestation)
            credential = auth_data.credential_data
            print(json.dumps({
                "ok": True,
                "format": attestation.fmt,
                "attestationType": checked.get("attestationType"),
                "credentialData": websafe_encode(credential),
                "credentialId": websafe_encode(credential.credential_id),
                "flags": auth_data.flags,
                "signCount": auth_data.counter,
            }))
        elif command == "authenticate":
            credential = AttestedCredentialData(websafe_decode(request["credentialData"]))
            auth_data = AuthenticatorData(websafe_decode(request["authenticatorData"]))
            server.authenticate_complete(
                state, [credential], websafe_decode(request["credentialId"]), client_data, auth_data,
                websafe_decode(request["signature"]))
            print(json.dumps({"ok": True, "flags": auth_data.flags, "signCount": auth_data.counter}))
        else:
            raise SystemExit(f"unknown command {command}")
    except Exception as error:  # every failed check is an answer, not a crash
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}))


if __name__ == "__main__":
    main()
