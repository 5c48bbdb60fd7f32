"""A private session bus for a test's D-Bus doubles: a dbus-daemon of its own, listening in a
folder, that lets every client own any name and see every message.

    daemon, address = private_bus.start(folder, services=None)

`services`: a folder of .service files the bus activates from. The daemon is a child of the
caller (in its process group): end the group, or terminate `daemon`, to end it."""
import os
import subprocess


def start(folder, services=None):
    servicedir = f"\n  <servicedir>{services}</servicedir>" if services else ""
    with open(os.path.join(folder, "bus.conf"), "w") as f:
        f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={folder}</listen>{servicedir}
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
""")
    daemon = subprocess.Popen(["dbus-daemon", "--config-file", os.path.join(folder, "bus.conf"), "--nofork", "--print-address=1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return daemon, daemon.stdout.readline().strip()
