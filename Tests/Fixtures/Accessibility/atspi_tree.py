#!/usr/bin/python3
"""What a screen reader finds in a running app, over AT-SPI (Debian's python3-pyatspi; run
with /usr/bin/python3, the system's Python, which has it).

    atspi_tree.py PID [DEPTH] [--wait-focus]

Finds the application whose process is PID on the accessibility bus (the session bus's
org.a11y.Bus, started on demand) and prints one JSON object: its windows, each with its role,
name and states, and every accessible under it down to DEPTH (default 12) with role, name,
description and states; and which accessible has the focus. Waits up to 20 s for the app to
appear on the bus; with --wait-focus, also for an accessible to have the focus (a loaded
page's tree reaches the bus a little after the page has loaded), then prints what it found.
"""
import json
import sys
import time

import pyatspi

pid = int(sys.argv[1])
depth_limit = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 12
wait_focus = "--wait-focus" in sys.argv[2:]


def states(accessible):
    try:
        return sorted(pyatspi.stateToString(s) for s in accessible.getState().getStates())
    except Exception:
        return []


def describe(accessible, depth, focused):
    try:
        node = {"role": accessible.getRoleName(), "name": accessible.name or "",
                "description": accessible.description or "", "states": states(accessible)}
    except Exception as error:
        return {"error": str(error)}
    if "focused" in node["states"]:
        focused.append({"role": node["role"], "name": node["name"]})
    if depth < depth_limit and node["role"] not in ("document web", "document frame"):
        children = []
        for index in range(min(accessible.childCount, 200)):
            child = accessible.getChildAtIndex(index)
            if child is not None:
                children.append(describe(child, depth + 1, focused))
        if children:
            node["children"] = children
    elif node["role"] in ("document web", "document frame"):
        # The page: only where the focus is in it.
        stack = [accessible]
        seen = 0
        while stack and seen < 2000:
            current = stack.pop()
            seen += 1
            try:
                if "focused" in states(current) and current is not accessible:
                    focused.append({"role": current.getRoleName(), "name": current.name or ""})
                stack.extend(c for c in (current.getChildAtIndex(i) for i in range(min(current.childCount, 200))) if c)
            except Exception:
                pass
    return node


deadline = time.monotonic() + 20
app = None
while time.monotonic() < deadline and app is None:
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        candidate = desktop.getChildAtIndex(index)
        try:
            if candidate is not None and candidate.get_process_id() == pid:
                app = candidate
                break
        except Exception:
            continue
    if app is None:
        time.sleep(0.2)
if app is None:
    print(json.dumps({"error": "no application with pid %d on the accessibility bus" % pid}))
    sys.exit(1)
while True:
    focused = []
    windows = [describe(app.getChildAtIndex(i), 0, focused) for i in range(app.childCount) if app.getChildAtIndex(i)]
    if focused or not wait_focus or time.monotonic() > deadline + 20:
        break
    time.sleep(0.2)
print(json.dumps({"application": app.name, "windows": windows, "focused": focused}))
