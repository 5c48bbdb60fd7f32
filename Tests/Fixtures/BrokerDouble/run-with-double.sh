#!/usr/bin/env bash
# Runs a command on a private session bus (dbus-run-session) where the D-Bus double of
# Microsoft's identity broker (broker_double.py, default answers) owns com.microsoft.identity.broker1.
#   bash Tests/Fixtures/BrokerDouble/run-with-double.sh COMMAND [ARGUMENTS...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ -z "${BROKER_DOUBLE_BUS:-}" ]; then
  exec env BROKER_DOUBLE_BUS=1 dbus-run-session -- bash "$0" "$@"
fi
scenario="$(mktemp)"
trap 'rm -f "$scenario"' EXIT
echo '{}' > "$scenario"
exec {double}< <(exec /usr/bin/python3 "$here/broker_double.py" "$scenario")
# The double says READY once it owns the name: wait for that line (a minute at most).
read -r -t 60 ready <&"$double" || { echo "the broker double did not start" >&2; exit 1; }
[[ "$ready" == READY* ]] || { echo "the broker double said: $ready" >&2; exit 1; }
cat <&"$double" >/dev/null &   # its request lines, drained
"$@"
