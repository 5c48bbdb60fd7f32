#!/usr/bin/env python3
"""Turns a terminal's text (tmux capture-pane -p) back into the picture a phone's camera sees, so
zbarimg can read the QR code drawn with half blocks.

    terminal_qr.py CAPTURE_FILE PBM_FILE

Each character cell is two pixels high (its upper and lower half) and one wide, scaled by 4:
a half with ink ("█", "▀" top, "▄" bottom) is light, an empty one is the terminal's dark
background, and so is everything around the text. Writes a plain PBM (1 = black).
"""
import sys

capture, out = sys.argv[1:3]
lines = open(capture, encoding="utf-8").read().split("\n")
width = max(len(line) for line in lines)
rows = []
for line in lines:
    line = line.ljust(width)
    top = [c in "█▀" for c in line]
    bottom = [c in "█▄" for c in line]
    rows += [top, bottom]
scale, border = 4, 8
w = (width + 2 * border) * scale
h = (len(rows) + 2 * border) * scale
with open(out, "w") as f:
    f.write("P1\n%d %d\n" % (w, h))
    dark_row = " ".join(["1"] * w)
    for _ in range(border * scale):
        f.write(dark_row + "\n")
    for row in rows:
        pixels = ["1"] * (border * scale)
        for light in row:
            pixels += ["0" if light else "1"] * scale
        pixels += ["1"] * (border * scale)
        text = " ".join(pixels)
        for _ in range(scale):
            f.write(text + "\n")
    for _ in range(border * scale):
        f.write(dark_row + "\n")
