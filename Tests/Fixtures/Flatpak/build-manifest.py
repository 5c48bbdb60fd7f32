#!/usr/bin/python3
"""What flatpak-builder does with a manifest whose modules are all `buildsystem: simple`, with
flatpak's own commands (this machine has flatpak but no flatpak-builder): `flatpak build-init`
against the manifest's SDK, each module's sources copied to /run/build/MODULE and its
build-commands run there by `flatpak build` with /app writable (the manifest's and the module's
build-options: env, build-args, prepend-path, append-path), then `flatpak build-finish` with the
finish-args and command, exported to REPO. A module may be a file name, relative to the
manifest, as apps list Examples/Flatpak/webviewhost-gobject.yml.

  build-manifest.py MANIFEST APPDIR REPO [--work DIR] [--sdk-extension NAME=FOLDER]...
                    [--env KEY=VALUE]... [--build-arg ARG]...

  --work DIR            where the modules' sources are copied (default APPDIR.sources); a file
                        whose content is unchanged keeps its time, so what a module's build left
                        there (SwiftPM's .build) makes the next build incremental
  --sdk-extension NAME=FOLDER
                        FOLDER mounted at /usr/lib/sdk/NAME, where flatpak mounts the SDK
                        extension org.freedesktop.Sdk.Extension.NAME the manifest lists
  --env KEY=VALUE       overrides the manifest's build-options env (every module)
  --build-arg ARG       one more `flatpak build` argument (every module)

Sources: `dir` (every file but its `skip` list) and `file`. Prints each
module's build time in seconds on standard error.
"""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import time

import yaml


def merged_options(*layers):
    """build-options of the manifest, then of the module: env and build-args add up, a path
    option of the module replaces the manifest's (flatpak-builder's order)."""
    env, build_args, prepend, append = {}, [], None, None
    for options in layers:
        options = options or {}
        env.update({str(k): str(v) for k, v in (options.get("env") or {}).items()})
        build_args += options.get("build-args") or []
        prepend = options.get("prepend-path", prepend)
        append = options.get("append-path", append)
    return env, build_args, prepend, append


def source_files(folder, skip):
    """The files of a `dir` source, relative to it, as flatpak-builder copies them: every one
    (uncommitted and ignored files too; a symbolic link as a link) but its `skip` list and
    flatpak-builder's own state."""
    skipped = {os.path.normpath(name) for name in skip} | {".flatpak-builder"}
    found = []
    for root, folders, names in os.walk(folder):
        relative = os.path.relpath(root, folder)
        paths = {name: os.path.normpath(os.path.join(relative, name)) for name in folders + names}
        links = [name for name in folders if os.path.islink(os.path.join(root, name))]
        folders[:] = [name for name in folders if name not in links and paths[name] not in skipped]
        found += [paths[name] for name in names + links if paths[name] not in skipped]
    return found


def make_folder(path, top):
    """PATH as a folder, under TOP: what an earlier copy left there as a file (a worktree's .git,
    say, where a clone has a folder) goes first."""
    parts = os.path.relpath(path, top).split(os.sep)
    current = top
    for part in parts:
        current = os.path.join(current, part)
        if os.path.lexists(current) and not os.path.isdir(current) or os.path.islink(current):
            os.remove(current)
    os.makedirs(path, exist_ok=True)


def place(source, target):
    """Copies one file unless the target already has its content (its time then stays); a folder
    an earlier copy left in its place goes first."""
    if os.path.isdir(target) and not os.path.islink(target):
        shutil.rmtree(target)
    if os.path.islink(source):
        if os.path.islink(target) and os.readlink(target) == os.readlink(source):
            return
        if os.path.lexists(target):
            os.remove(target)
        os.symlink(os.readlink(source), target)
        return
    if os.path.isfile(target) and not os.path.islink(target) and filecmp.cmp(source, target, shallow=False):
        shutil.copymode(source, target)
        return
    if os.path.lexists(target):
        os.remove(target)
    shutil.copyfile(source, target)
    shutil.copymode(source, target)


def copy_sources(module, base, folder):
    """The module's sources in FOLDER: copied files, files no source has any more removed
    (what a build wrote beside them, dot-folders such as .build, stays)."""
    wanted = set()
    for source in module.get("sources") or []:
        kind = source.get("type")
        if kind == "dir":
            origin = os.path.normpath(os.path.join(base, source["path"]))
            for name in source_files(origin, source.get("skip") or []):
                target = os.path.join(folder, source.get("dest", ""), name)
                make_folder(os.path.dirname(target), folder)
                place(os.path.join(origin, name), target)
                wanted.add(os.path.normpath(target))
        elif kind == "file":
            origin = os.path.normpath(os.path.join(base, source["path"]))
            target = os.path.join(folder, source.get("dest", ""), source.get("dest-filename", os.path.basename(origin)))
            make_folder(os.path.dirname(target), folder)
            place(origin, target)
            wanted.add(os.path.normpath(target))
        else:
            sys.exit(f"build-manifest.py: source type {kind} is not supported here")
    for root, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in names:
            path = os.path.normpath(os.path.join(root, name))
            if path not in wanted:
                os.remove(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("manifest")
    parser.add_argument("appdir")
    parser.add_argument("repo")
    parser.add_argument("--work")
    parser.add_argument("--sdk-extension", action="append", default=[])
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--build-arg", action="append", default=[])
    arguments = parser.parse_args()
    manifest_path = os.path.abspath(arguments.manifest)
    with open(manifest_path) as file:
        manifest = yaml.safe_load(file)
    app_id, branch = manifest["app-id"], str(manifest.get("branch", "master"))
    runtime_version = str(manifest.get("runtime-version", "master"))
    work = os.path.abspath(arguments.work or arguments.appdir + ".sources")
    overrides = dict(item.split("=", 1) for item in arguments.env)
    extensions = dict(item.split("=", 1) for item in arguments.sdk_extension)
    mounts = []
    for extension in manifest.get("sdk-extensions") or []:
        name = extension.rsplit(".", 1)[-1]
        if name not in extensions:
            sys.exit(f"build-manifest.py: the manifest needs {extension}: pass --sdk-extension {name}=FOLDER")
        mounts.append(f"--bind-mount=/usr/lib/sdk/{name}={os.path.realpath(extensions[name])}")

    shutil.rmtree(arguments.appdir, ignore_errors=True)
    subprocess.run(["flatpak", "build-init", arguments.appdir, app_id, manifest["sdk"], manifest["runtime"], runtime_version],
                   check=True, stdout=subprocess.DEVNULL)
    for entry in manifest.get("modules") or []:
        base = os.path.dirname(manifest_path)
        if isinstance(entry, str):
            path = os.path.normpath(os.path.join(base, entry))
            with open(path) as file:
                module = yaml.safe_load(file)
            base = os.path.dirname(path)
        else:
            module = entry
        name = module["name"]
        if module.get("buildsystem") != "simple":
            sys.exit(f"build-manifest.py: module {name}: only buildsystem simple is supported here")
        folder = os.path.join(work, name)
        os.makedirs(folder, exist_ok=True)
        copy_sources(module, base, folder)
        env, build_args, prepend, append = merged_options(manifest.get("build-options"), module.get("build-options"))
        env.update(overrides)
        path = ":".join(part for part in [prepend, "/app/bin:/usr/bin", append] if part)
        builddir = f"/run/build/{name}"
        command = ["flatpak", "build", "--die-with-parent", f"--build-dir={builddir}", f"--bind-mount={builddir}={folder}",
                   *mounts, *build_args, *arguments.build_arg,
                   f"--env=FLATPAK_ID={app_id}", "--env=FLATPAK_DEST=/app", f"--env=FLATPAK_BUILDER_BUILDDIR={builddir}",
                   f"--env=PATH={path}", *[f"--env={key}={value}" for key, value in env.items()], arguments.appdir, "/bin/sh", "-c"]
        started = time.monotonic()
        for step in module.get("build-commands") or []:
            print(f"build-manifest.py: {name}: {step}", file=sys.stderr, flush=True)
            if subprocess.run(command + [step]).returncode != 0:
                sys.exit(f"build-manifest.py: module {name}: `{step}` failed")
        print(f"build-manifest.py: {name} built in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    finish = ["flatpak", "build-finish", arguments.appdir, *(manifest.get("finish-args") or [])]
    if manifest.get("command"):
        finish.append(f"--command={manifest['command']}")
    subprocess.run(finish, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["flatpak", "build-export", "--disable-sandbox", "--no-update-summary", arguments.repo, arguments.appdir, branch],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["flatpak", "build-update-repo", arguments.repo], check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
