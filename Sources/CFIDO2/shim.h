// libfido2 (Yubico's CTAP2/U2F client library, Debian's libfido2-dev): the security keys the
// embedded view's WebAuthn ceremonies talk to (`SecurityKeys` only).
#ifndef WEBVIEWHOST_CFIDO2_SHIM_H
#define WEBVIEWHOST_CFIDO2_SHIM_H
#include <fido.h>
#include <fido/es256.h>
#endif
