#!/usr/bin/python3
"""A session bus whose Secret Service hangs, as a keyring locked behind a prompt nobody sees (or a
gnome-keyring-daemon that never finishes starting) does: a D-Bus caller waits its whole timeout,
25 s by default. The service is activatable, as gnome-keyring's is: the first call to it starts
this script again (--service), which writes "started" to LOG, owns the name, and takes every
call without answering, writing each to LOG (interface.member path).

    silent_keyring.py LOG      prints the bus's address on standard output, then runs until killed

Its dbus-daemon (and the service it starts) are in its process group: kill the group to end them.
The bus's files are in a folder beside LOG."""
import os
import sys
import tempfile

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "DBus"))
import private_bus  # noqa: E402

SERVICE = "org.freedesktop.secrets"


def serve(log_path):
    log = open(log_path, "a", buffering=1)
    log.write("started\n")
    connection = Gio.bus_get_sync(Gio.BusType.STARTER, None)

    def swallow(_connection, message, incoming):
        # Method calls to the service are written down and dropped: their callers get no answer.
        if incoming and message.get_message_type() == Gio.DBusMessageType.METHOD_CALL and message.get_destination() == SERVICE:
            log.write(f"{message.get_interface()}.{message.get_member()} {message.get_path()}\n")
            return None
        return message

    connection.add_filter(swallow)
    connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                         GLib.Variant("(su)", (SERVICE, 4)), GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, -1, None)
    GLib.MainLoop().run()


if sys.argv[1] == "--service":
    serve(sys.argv[2])
    sys.exit(0)

log = os.path.abspath(sys.argv[1])
folder = tempfile.mkdtemp(prefix="silent-keyring-", dir=os.path.dirname(log))  # removed with the log's folder
services = os.path.join(folder, "services")
os.mkdir(services)
with open(os.path.join(services, SERVICE + ".service"), "w") as f:
    f.write(f"[D-BUS Service]\nName={SERVICE}\nExec={sys.executable} {os.path.abspath(__file__)} --service {log}\n")
daemon, address = private_bus.start(folder, services)
print(address, flush=True)
daemon.wait()
