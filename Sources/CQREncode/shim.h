// libqrencode (QR codes), for the device code sign-in's link: the terminal draws it with
// Unicode blocks, the toolkits' window as an image.
#ifndef WEBVIEWHOST_CQRENCODE_SHIM_H
#define WEBVIEWHOST_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
