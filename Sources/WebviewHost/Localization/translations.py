#!/usr/bin/env python3
"""The library's translations (gettext domain `webviewhost`).

    python3 Sources/WebviewHost/Localization/translations.py          # update everything
    python3 Sources/WebviewHost/Localization/translations.py --check  # fail when anything is stale

Every text the library shows a person is a call `ShownText.tr("context", "English")` (or
`ShownText.html(...)`, or a local `html("context", "English")` that forwards to it) with two
string literals. This script finds them in Sources/ and Plugins/ (xgettext's keyword
`tr:1c,2`, read with a Swift-aware pattern: xgettext's C lexer stops at Swift's multi-line
strings), writes the template po/webviewhost.pot, merges it into every po/<language>.po
(`msgmerge`), and compiles each into locale/<language>/LC_MESSAGES/webviewhost.mo (`msgfmt
--check`), which SwiftPM ships as the WebviewHost target's resources.

With --check nothing is written: it fails when the template misses a text of the sources or
holds one they no longer have, when a catalog has an untranslated or fuzzy entry or does not
compile, or when a compiled catalog is not what its .po compiles to.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PO = os.path.join(HERE, "po")
LOCALE = os.path.join(HERE, "locale")
DOMAIN = "webviewhost"
CALL = re.compile(r'\b(?:tr|html)\(\s*"((?:[^"\\\n]|\\.)*)"\s*,\s*"((?:[^"\\\n]|\\.)*)"', re.S)
HEADER = '''# Texts the WebviewHost library shows people: its windows and questions, the page the
# person's browser shows after signing in, the device-code texts, the terminal prompts.
# Written by the WebviewHost developers; native speakers are welcome to correct them
# (a pull request to Sources/WebviewHost/Localization/po/).
# "{name}" is a placeholder: keep it as it is. "_" marks the letter of a keyboard shortcut.
msgid ""
msgstr ""
"Project-Id-Version: WebviewHost\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
'''


def swift_unescape(text):
    return re.sub(r'\\(["\\])', r"\1", text).replace("\\u{2014}", "\u2014")


def po_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def extract():
    """(context, text) -> [file], in the order first met."""
    found = {}
    files = sorted(glob.glob(os.path.join(ROOT, "Sources", "**", "*.swift"), recursive=True)
                   + glob.glob(os.path.join(ROOT, "Plugins", "**", "*.swift"), recursive=True))
    for path in files:
        if os.path.islink(os.path.dirname(path)) or "/Shared/" in path.replace(ROOT, ""):
            continue  # the toolkits' Shared links: the same files as EmbeddedWebviewShared
        source = open(path, encoding="utf-8").read()
        for match in CALL.finditer(source):
            start = source.rfind("\n", 0, match.start()) + 1
            if "//" in source[start:match.start()]:
                continue  # a comment that shows how to call it
            key = (swift_unescape(match.group(1)), swift_unescape(match.group(2)))
            places = found.setdefault(key, [])
            # The file only, as `xgettext --add-location=file` writes it: a line number would
            # make every edit above a shown text a stale template.
            if os.path.relpath(path, ROOT) not in places:
                places.append(os.path.relpath(path, ROOT))
    return found


def template(found):
    entries = []
    for (context, text), places in found.items():
        entries.append("#: %s\nmsgctxt \"%s\"\nmsgid \"%s\"\nmsgstr \"\"\n" % (
            " ".join(places), po_escape(context), po_escape(text)))
    return HEADER + "\n" + "\n".join(entries)


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def compiled(po):
    with tempfile.NamedTemporaryFile(suffix=".mo") as out:
        run("msgfmt", "--check", "-o", out.name, po)
        return open(out.name, "rb").read()


def languages():
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(PO, "*.po")))


def untranslated(po):
    """msgfmt --statistics: 'N translated messages, M fuzzy translations, K untranslated messages.'"""
    stats = subprocess.run(["msgfmt", "--statistics", "-o", os.devnull, po], capture_output=True, text=True).stderr
    return not re.fullmatch(r"\d+ translated messages?\.\s*", stats), stats.strip()


def check():
    problems = []
    pot = os.path.join(PO, DOMAIN + ".pot")
    wanted = template(extract())
    if not os.path.exists(pot) or open(pot, encoding="utf-8").read() != wanted:
        problems.append("po/%s.pot is not what the sources hold: run %s" % (DOMAIN, os.path.relpath(__file__, ROOT)))
    for language in languages():
        po = os.path.join(PO, language + ".po")
        try:
            mo = compiled(po)
        except subprocess.CalledProcessError as error:
            problems.append("%s.po does not compile: %s" % (language, error.stderr.strip()))
            continue
        incomplete, stats = untranslated(po)
        if incomplete:
            problems.append("%s.po is not complete: %s" % (language, stats))
        with tempfile.NamedTemporaryFile(suffix=".po") as merged:
            run("msgmerge", "--quiet", "--no-fuzzy-matching", "-o", merged.name, po, pot)
            if compiled(merged.name) != mo:
                problems.append("%s.po does not follow the template: run the script" % language)
        shipped = os.path.join(LOCALE, language, "LC_MESSAGES", DOMAIN + ".mo")
        if not os.path.exists(shipped) or open(shipped, "rb").read() != mo:
            problems.append("locale/%s/LC_MESSAGES/%s.mo is not what %s.po compiles to" % (language, DOMAIN, language))
    shipped = sorted(os.path.basename(os.path.dirname(os.path.dirname(p)))
                     for p in glob.glob(os.path.join(LOCALE, "*", "LC_MESSAGES", DOMAIN + ".mo")))
    if shipped != languages():
        problems.append("compiled catalogs %s, sources %s" % (shipped, languages()))
    return problems


def update():
    os.makedirs(PO, exist_ok=True)
    pot = os.path.join(PO, DOMAIN + ".pot")
    with open(pot, "w", encoding="utf-8") as out:
        out.write(template(extract()))
    for language in languages():
        po = os.path.join(PO, language + ".po")
        run("msgmerge", "--quiet", "--update", "--backup=none", "--no-fuzzy-matching", "--no-wrap", po, pot)
        target = os.path.join(LOCALE, language, "LC_MESSAGES")
        os.makedirs(target, exist_ok=True)
        with open(os.path.join(target, DOMAIN + ".mo"), "wb") as out:
            out.write(compiled(po))
        incomplete, stats = untranslated(po)
        print("%s: %s" % (language, stats))


if __name__ == "__main__":
    if "--check" in sys.argv:
        problems = check()
        for problem in problems:
            print("translations: " + problem, file=sys.stderr)
        sys.exit(1 if problems else 0)
    update()
