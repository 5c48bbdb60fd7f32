#!/usr/bin/python3
"""xdg-desktop-portal's ProxyResolver (org.freedesktop.portal.ProxyResolver, version 1) on a
private session bus, as a Flatpak app sees it: Lookup(uri) answers with the proxies the host's
resolver gives. Here the host is GNOME with an authenticating proxy: GNOME's resolver writes the
user name and password into the proxy's URI, and the portal passes that URI on as it is.

    proxy_portal.py LOG PROXY [DIRECT_HOST ...]
        prints the bus's address on standard output once the portal owns its name, then runs
        until killed. Lookup answers [PROXY] for every URI but those whose host is a DIRECT_HOST,
        which get ["direct://"]; each URI asked is written to LOG, a line each.

Its dbus-daemon is in its process group: kill the group to end both. The bus's socket is in a
folder beside LOG."""
import os
import sys
import tempfile
from urllib.parse import urlsplit

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "DBus"))
import private_bus  # noqa: E402

INTERFACE = """<node>
  <interface name="org.freedesktop.portal.ProxyResolver">
    <method name="Lookup"><arg type="s" name="uri" direction="in"/><arg type="as" name="proxies" direction="out"/></method>
    <property name="version" type="u" access="read"/>
  </interface>
</node>"""

log_path, proxy = os.path.abspath(sys.argv[1]), sys.argv[2]
direct_hosts = set(sys.argv[3:])
log = open(log_path, "a", buffering=1)

folder = tempfile.mkdtemp(prefix="proxy-portal-", dir=os.path.dirname(log_path))  # removed with the log's folder
daemon, address = private_bus.start(folder)
connection = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def method_call(_connection, _sender, _path, _interface, method, parameters, invocation):
    if method != "Lookup":
        invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)
        return
    uri = parameters.unpack()[0]
    log.write(uri + "\n")
    host = urlsplit(uri).hostname or ""
    invocation.return_value(GLib.Variant("(as)", (["direct://"] if host in direct_hosts else [proxy],)))


def get_property(_connection, _sender, _path, _interface, name):
    return GLib.Variant("u", 1) if name == "version" else None


node = Gio.DBusNodeInfo.new_for_xml(INTERFACE)
connection.register_object("/org/freedesktop/portal/desktop", node.interfaces[0], method_call, get_property, None)
connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                     GLib.Variant("(su)", ("org.freedesktop.portal.Desktop", 4)), GLib.VariantType("(u)"),
                     Gio.DBusCallFlags.NONE, -1, None)
print(address, flush=True)
try:
    GLib.MainLoop().run()
finally:
    daemon.terminate()
