#!/usr/bin/python3
"""Checks the README's GObject examples ("From C, Python, JavaScript and Vala") against the
GObject layer installed in PREFIX (Tools/gobject/gir.sh): the C example compiles and links with
pkg-config (-Werror), the Vala one type-checks with valac and the .vapi, the JavaScript one parses
as an ES module (gjs -m, not run), and every WebviewHost
name and method the Python and JavaScript examples use exists in the typelibs (WebviewHost-3.0
for Python's GTK 3, WebviewHost-4.0 for GJS's GTK 4).

  gobject-examples.py PREFIX
"""
import os
import re
import subprocess
import sys
import tempfile

prefix = os.path.abspath(sys.argv[1])
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
readme = open(os.path.join(root, "README.md")).read()
section = readme[readme.index("## From C, Python, JavaScript and Vala"):readme.index("## How it is tested")]
blocks = re.findall(r"```(\w+)\n(.*?)```", section, re.S)
languages = {language for language, _ in blocks}
missing = {"c", "python", "js", "vala"} - languages
if missing:
    sys.exit("README's GObject section has no %s example" % ", ".join(sorted(missing)))
environment = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"),
                   GI_TYPELIB_PATH=os.path.join(prefix, "lib", "girepository-1.0"))
failures = []
work = tempfile.mkdtemp(prefix="gobject-examples-")


def run(command, what):
    result = subprocess.run(command, shell=True, env=environment, capture_output=True, text=True)
    if result.returncode != 0:
        failures.append("%s:\n%s%s" % (what, result.stdout[-3000:], result.stderr[-3000:]))


def names_resolve(code, version, what):
    """Every WebviewHost.X(.Y) the code names, and every method it calls on one of the library's
    objects, exists in the typelib."""
    script = r'''
import re, sys, gi
gi.require_version("WebviewHost", "%s")
from gi.repository import WebviewHost
code = sys.stdin.read()
bad = []
for chain in set(re.findall(r"WebviewHost\.([A-Za-z_][\w.]*)", code)):
    target = WebviewHost
    for part in chain.rstrip(".").split("."):
        if part == "prototype":
            continue
        if not hasattr(target, part):
            bad.append("WebviewHost." + chain)
            break
        target = getattr(target, part)
members = set()
for name in dir(WebviewHost):
    members |= set(dir(getattr(WebviewHost, name)))
for method in set(re.findall(r"[.'\"](acquire_\w+|get_accounts\w*|sign_out\w*|start_\w+|register|unregister|complete|fail|did_\w+|is_finished|select_provider|prewarm)\b", code)):
    if method not in members:
        bad.append(method)
vfuncs = set()
for name in dir(WebviewHost):
    info = getattr(getattr(WebviewHost, name), "__info__", None)
    if hasattr(info, "get_vfuncs"):
        vfuncs |= {vfunc.get_name() for vfunc in info.get_vfuncs()}
# A Python implementation's do_NAME and a GJS one's vfunc_NAME: a virtual method of the library's.
for vfunc in set(re.findall(r"\b(?:do|vfunc)_(\w+)\s*\(", code)):
    if vfunc not in vfuncs:
        bad.append("the virtual method " + vfunc)
print("\n".join(bad))
sys.exit(1 if bad else 0)
''' % version
    result = subprocess.run(["/usr/bin/python3", "-c", script], input=code, env=environment, capture_output=True, text=True)
    if result.returncode != 0:
        failures.append("%s names what WebviewHost-%s does not have:\n%s%s" % (what, version, result.stdout, result.stderr[-2000:]))


for index, (language, code) in enumerate(blocks):
    what = "the README's %s example %d" % (language, index + 1)
    if language == "c":
        path = os.path.join(work, "example%d.c" % index)
        open(path, "w").write(code)
        run("cc -Wall -Werror -o %s.out %s $(pkg-config --cflags --libs webviewhost-gtk3)" % (path, path), what)
    elif language == "vala":
        path = os.path.join(work, "example%d.vala" % index)
        open(path, "w").write(code)
        run("cd %s && valac -C --vapidir=%s --pkg webviewhost-gtk4 %s" % (work, os.path.join(prefix, "share", "vala", "vapi"), path), what)
    elif language == "python":
        try:
            compile(code, what, "exec")
        except SyntaxError as error:
            failures.append("%s: %s" % (what, error))
        names_resolve(code, "3.0", what)
    elif language == "js":
        # Parsed as the ES module the README says to run it as (`gjs -m`), never run: inside a
        # block that is never entered, its top-level await still counts as one.
        path = os.path.join(work, "example%d.js" % index)
        open(path, "w").write("if (false) {\n" + code + "\n}\n")
        run("gjs -m %s" % path, what)
        names_resolve(code, "4.0", what)
if failures:
    sys.exit("\n\n".join(failures))
print("%d GObject examples of README.md checked (%s)" % (len(blocks), ", ".join(sorted(languages))))
