#!/usr/bin/env bash
# A private Secret Service for the token cache tests: run it as
#   dbus-run-session -- bash keyring-session.sh STATE_DIR
# It starts gnome-keyring-daemon (secrets component only) on this private session bus, with its
# keyrings in STATE_DIR/data/keyrings and the login keyring created and unlocked with a test
# password (no prompt), writes the bus address to STATE_DIR/bus-address, then waits until
# STATE_DIR/stop exists (at most 300 s). When it exits, dbus-run-session ends the bus and the
# keyring daemon with it. Nothing here touches the person's own keyring or session bus.
set -euo pipefail
state="${1:?usage: keyring-session.sh STATE_DIR}"
mkdir -p "$state/data" "$state/runtime"
chmod 700 "$state/runtime"
export XDG_DATA_HOME="$state/data" XDG_RUNTIME_DIR="$state/runtime" HOME="$state"
# --unlock reads the password on standard input; the daemon forks and prints its variables.
echo -n "token-cache-tests" | gnome-keyring-daemon --unlock --components=secrets > "$state/keyring-env" 2> "$state/keyring.log"
# Wait until the daemon owns org.freedesktop.secrets on this bus.
for _ in $(seq 1 100); do
  if gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
       --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true; then
    break
  fi
  sleep 0.1
done
echo "$DBUS_SESSION_BUS_ADDRESS" > "$state/bus-address.tmp"
mv "$state/bus-address.tmp" "$state/bus-address"
for _ in $(seq 1 3000); do
  [ -e "$state/stop" ] && exit 0
  sleep 0.1
done
echo "keyring-session.sh: no stop file after 300 s; ending the private bus" >&2
exit 1
