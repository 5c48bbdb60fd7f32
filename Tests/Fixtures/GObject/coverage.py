#!/usr/bin/env python3
"""Which entries of the WebviewHost typelib no Python or no GJS fixture uses: every function,
method, property, signal and virtual method of WebviewHost-VERSION (read with GIRepository, so a
new one is listed without anybody adding it here), looked for in the fixtures of this folder by
the name each language calls it by (a method `name(`, a property `name`/`name_`/camelCase or its
"name" string, a signal its "name" string, a virtual method `do_name` in Python, `vfunc_name` in
GJS; a `_finish` method counts where its `_async` is called). Prints JSON:
{"entries": N, "uncovered": ["kind Owner name: python, gjs", ...]}.

  coverage.py VERSION
"""
import glob
import json
import os
import re
import sys

import gi

gi.require_version("GIRepository", "2.0")
from gi.repository import GIRepository  # noqa: E402

version = sys.argv[1]
repository = GIRepository.Repository.get_default()
repository.require("WebviewHost", version, 0)

entries = []
for index in range(repository.get_n_infos("WebviewHost")):
    info = repository.get_info("WebviewHost", index)
    kind, owner = info.get_type(), info.get_name()
    if kind == GIRepository.InfoType.FUNCTION:
        entries.append(("function", "", owner))
        continue
    if kind not in (GIRepository.InfoType.OBJECT, GIRepository.InfoType.INTERFACE):
        continue
    prefix = "object_info" if kind == GIRepository.InfoType.OBJECT else "interface_info"
    for member, label in (("method", "method"), ("property", "property"), ("signal", "signal"), ("vfunc", "vfunc")):
        count = getattr(GIRepository, "%s_get_n_%ss" % (prefix, "propertie" if member == "property" else member))(info)
        for position in range(count):
            entries.append((label, owner, getattr(GIRepository, "%s_get_%s" % (prefix, member))(info, position).get_name()))

here = os.path.dirname(os.path.abspath(__file__))
sources = {language: "\n".join(open(path).read() for path in sorted(glob.glob(os.path.join(here, "*." + extension))))
           for language, extension in (("python", "py"), ("gjs", "js"))}
sources["python"] = sources["python"].replace(open(os.path.abspath(__file__)).read(), "")  # not this file


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def patterns(language, kind, owner, name):
    if kind in ("method", "function"):
        if name == "new":
            return [r"\b%s(\.new)?\(" % owner, r"new WebviewHost\.%s\b" % owner]
        found = [r"\b%s\(" % name]
        if name.endswith("_finish"):
            found.append(r"\b%s_async\b" % name[:-len("_finish")])
        return found
    if kind == "property":
        snake = name.replace("-", "_")
        return [r"\b%s\b" % snake, r"['\"]%s['\"]" % name, r"\b%s\b" % camel(snake)]
    if kind == "signal":
        return [r"['\"]%s['\"]" % name]
    return [r"\bdo_%s\b" % name] if language == "python" else [r"\bvfunc_%s\b" % name]


uncovered = []
for kind, owner, name in entries:
    missing = [language for language in ("python", "gjs")
               if not any(re.search(pattern, sources[language]) for pattern in patterns(language, kind, owner, name))]
    if missing:
        uncovered.append("%s %s %s: %s" % (kind, owner or "-", name, ", ".join(missing)))
print(json.dumps({"entries": len(entries), "uncovered": uncovered}))
