#!/usr/bin/env python3
"""Reads a valgrind memcheck log and prints the definite leaks a library allocated itself: those
whose innermost stack frame outside the allocators (malloc, g_malloc, swift_allocObject...) is in
LIBRARY. Leaks WebKit, GTK or GLib made inside calls the library made are theirs, not its.
Exit status 1 when there is one.

  definite-leaks.py LOG LIBRARY      (LIBRARY: a file name, libwebviewhost-gtk3.so)
"""
import re
import sys

ALLOCATORS = re.compile(r": (malloc|calloc|realloc|memalign|posix_memalign|aligned_alloc|operator new|"
                        r"g_malloc|g_malloc0|g_realloc|g_try_malloc|g_try_malloc0|g_slice_alloc|g_slice_alloc0|g_memdup2?|"
                        r"g_strdup|g_strndup|g_strdup_printf|g_strdup_vprintf|swift_slowAlloc|swift_allocObject|"
                        r"swift_allocBox|swift_allocEmptyBox)\b")
log, library = sys.argv[1], sys.argv[2]
records, current = [], None
for line in open(log, errors="replace"):
    text = re.sub(r"^==\d+== ?", "", line.rstrip("\n"))
    if "definitely lost in loss record" in text:
        current = [text]
        records.append(current)
    elif current is not None:
        if not text.strip():
            current = None
        else:
            current.append(text)
ours = []
for record in records:
    frames = [f for f in record[1:] if f.strip().startswith(("at ", "by "))]
    inner = next((f for f in frames if not ALLOCATORS.search(f)), "")
    if library in inner:
        ours.append(record)
print("%d definite leak records, %d allocated by %s" % (len(records), len(ours), library))
for record in ours:
    print("\n".join(record[:25]))
    print("--")
sys.exit(1 if ours else 0)
