#!/usr/bin/env python3
"""Checks that the library's layers point down (docs/architecture.md).

Layers, lowest first; a file may include headers and call functions of its own
layer and of the layers below it, never of a layer above:

  env        env/: the environment table and parsers (shared with oshrun), the debug
             log (which the bootstrap uses too)
  bootstrap  bootstrap/
  base       base/: the process-wide state as data, error reporting,
             polite polling, which routine a thread is in, fatal signals
  transport  transport/ (generic dispatch) and its backends transport/<name>/;
             device/ (the device layer) and its backends device/<name>/, beside it
  core, mem  core/ (teams, topology, progress, the initial state) and mem/
  coll       coll/
  api        api/

Each layer is its folder (or two folders side by side), so the rules are folder
rules. Besides: no two folders include each other; a backend knows no other backend;
coll/ reaches the transports only through transport/transport.h (no backend header,
no backend identifier); above transport/, the network transport's table
(shoal_tp.net) is reached only through transport.h's dispatchers; the bootstrap touches no transport; a wrapper of the paths
(transport/dev_route.c, poll.c, pcntr.c) calls only down into the table it wraps,
never back up through the dispatchers or the installed table (shoal.path).

Usage: check_layering.py SRC_DIR       check a tree (exit 1 on a violation)
       check_layering.py --self-test SRC_DIR
           plant one violation of each kind into copies of the tree and require
           that every one is caught (and that the clean tree passes).
"""
import os
import re
import shutil
import sys
import tempfile

RANK = {"env": 0, "bootstrap": 1, "base": 2, "transport": 3, "device": 3, "core": 4, "mem": 4,
        "coll": 5, "api": 6}
# Identifiers that belong to one backend, by backend folder.
BACKEND_IDS = {
    "shm": r"\bshoal_shm_\w+|\bshoal_transport_shm\b",
    "ofi": r"\bofi_\w+|\bshoal_net_ofi\b|\bfi_\w+",
    "mpi": r"\bshoal_mpi_\w+|\bshoal_net_mpi\b|\bMPI_\w+",
    "emu": r"\bshoal_dev_emu\b",
    "cuda": r"\bshoal_dev_cuda\b|\bcu[A-Z]\w+",
    "rocm": r"\bshoal_dev_rocm\b|\bhip[A-Z]\w+",
}
GENERATED = {"build_info.h"}
# The wrappers of the paths, and what climbing back up from one looks like.
WRAPPERS = {"transport/dev_route.c", "transport/poll.c", "transport/pcntr.c"}
NET_TABLE = r"\bshoal_tp\.net\b"
CLIMB = r"\bshoal_tp_(put|get|amo|put_signal|fence|quiet)\b|\bshoal\.path\b"


def layer_of(rel):
    """(layer, backend or None) of a path relative to src/."""
    top = rel.split("/")[0]
    if top in ("transport", "device"):
        parts = rel.split("/")
        return top, parts[1] if len(parts) > 2 else None
    if top in RANK:
        return top, None
    return None, None


def strip_comments_and_strings(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


DEF_RE = re.compile(r"^(?!static\b|typedef\b|extern\b|struct\b[^(]*\{|#)[A-Za-z_][\w \t\*]*?"
                    r"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:__attribute__\(\(.*?\)\)\s*)?\{",
                    re.M | re.S)
INC_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def sources(src):
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                path = os.path.join(root, f)
                yield os.path.relpath(path, src), path


def resolve_include(src, rel, inc):
    """The src-relative path an #include names, or None for one outside src/."""
    if inc in GENERATED:
        return None
    for cand in (inc, os.path.join(os.path.dirname(rel), inc), os.path.join("env", inc),
                 os.path.join("bootstrap", inc)):
        cand = os.path.normpath(cand)
        if os.path.exists(os.path.join(src, cand)):
            return cand
    return None


def check(src):
    errors = []
    files = {}
    for rel, path in sources(src):
        with open(path, encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
        files[rel] = (raw, strip_comments_and_strings(raw))

    # Where each external function is defined.
    defined = {}
    for rel, (_, code) in files.items():
        layer, _ = layer_of(rel)
        if layer is None or not rel.endswith(".c"):
            continue
        for m in DEF_RE.finditer(code):
            defined.setdefault(m.group(1), (layer, rel))

    if len(defined) < 50:
        errors.append(f"only {len(defined)} function definitions found: the parser is broken")
    folder_edges = {}
    for rel, (raw, code) in files.items():
        layer, backend = layer_of(rel)
        if layer is None:
            continue
        rank = RANK[layer]
        for inc in INC_RE.findall(raw):
            target = resolve_include(src, rel, inc)
            if target and layer_of(target)[0] and target.split("/")[0] != rel.split("/")[0]:
                folder_edges.setdefault((rel.split("/")[0], target.split("/")[0]), rel)
        for inc in INC_RE.findall(raw):
            target = resolve_include(src, rel, inc)
            if target is None:
                continue
            tlayer, tbackend = layer_of(target)
            if tlayer is None:
                continue
            if RANK[tlayer] > rank:
                errors.append(f"{rel}: includes {target}: {layer}/ reaches up into {tlayer}/")
            if backend and tbackend and tbackend != backend:
                errors.append(f"{rel}: includes {target}: backend {backend} reaches into "
                              f"backend {tbackend}")
            if layer == "coll" and tbackend:
                errors.append(f"{rel}: includes {target}: coll/ touches a transport backend "
                              "(use transport/transport.h)")
            if layer == "bootstrap" and tlayer == "transport":
                errors.append(f"{rel}: includes {target}: the bootstrap touches a transport")
        for name in sorted(set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code))):
            if name not in defined:
                continue
            dlayer, drel = defined[name]
            if RANK[dlayer] > rank and drel != rel:
                errors.append(f"{rel}: calls {name} ({drel}): {layer}/ reaches up into "
                              f"{dlayer}/")
        if rank > RANK["transport"]:
            m = re.search(NET_TABLE, code)
            if m:
                errors.append(f"{rel}: uses {m.group(0)}: {layer}/ reaches the network "
                              "transport's table (call a dispatcher of transport/transport.h)")
        if rel in WRAPPERS:
            m = re.search(CLIMB, code)
            if m:
                errors.append(f"{rel}: uses {m.group(0)}: a wrapper of the paths climbs back "
                              "up (call the table it wraps)")
        for other, pattern in BACKEND_IDS.items():
            if other == backend:
                continue
            if backend or layer in ("coll", "bootstrap"):
                m = re.search(pattern, code)
                if m:
                    who = f"backend {backend}" if backend else f"{layer}/"
                    errors.append(f"{rel}: uses {m.group(0)}: {who} touches backend {other}")
    for (a, b), rel in sorted(folder_edges.items()):
        if a < b and (b, a) in folder_edges:
            errors.append(f"{a}/ and {b}/ include each other ({rel}, {folder_edges[(b, a)]})")
    return errors


# One planted violation of each rule: (file to edit, text appended to it).
PLANTS = [
    ("transport/shm/shm.c", '#include "api/api.h"\n'),
    ("core/topology.c", "void planted(void) { shoal_teams_reset(); }\n"),
    ("coll/barrier.c", '#include "transport/shm/shm.h"\n'),
    ("coll/coll.c", "void planted(void) { shoal_shm_fence(); }\n"),
    ("bootstrap/select.c", '#include "transport/transport.h"\n'),
    ("transport/ofi/ofi_ops.c", "void planted(void) { shoal_shm_fence(); }\n"),
    ("mem/alloc.c", '#include "coll/coll.h"\n'),
    ("device/emu/emu.c", "void planted(void) { (void)shoal_dev_cuda; }\n"),
    ("device/device.c", '#include "mem/alloc.h"\n'),
    ("device/device.c", '#include "transport/transport.h"\n'),
    ("bootstrap/select.c", '#include "base/error.h"\n'),
    ("transport/pcntr.c", "void planted(void) { shoal_tp_quiet(SHMEM_CTX_DEFAULT); }\n"),
    ("core/progress.h", "static inline void planted(void) { shoal_tp.net->progress(); }\n"),
]


def self_test(src):
    failures = []
    clean = check(src)
    if clean:
        failures.append("the clean tree fails:\n  " + "\n  ".join(clean))
    for target, text in PLANTS:
        if not os.path.exists(os.path.join(src, target)):
            failures.append(f"plant target {target} is missing; update PLANTS")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "src")
            shutil.copytree(src, copy)
            with open(os.path.join(copy, target), "a", encoding="utf-8") as fh:
                fh.write(text)
            found = check(copy)
            if not found:
                failures.append(f"not caught: {target} += {text.strip()}")
            else:
                print(f"caught: {target} += {text.strip()}\n  -> {found[0]}")
    return failures


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        failures = self_test(argv[2])
        for f in failures:
            print("FAIL:", f)
        return 1 if failures else 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    errors = check(argv[1])
    for e in errors:
        print("layering:", e)
    if errors:
        print(f"{len(errors)} layering violation(s); see docs/architecture.md for the layers")
        return 1
    print("layering: every include and call points down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
