#!/usr/bin/env python3
"""Every test has a TIMEOUT, and a test whose command starts a job with a launcher's
--timeout T (oshrun, or pe_launch.sh) has a TIMEOUT of at least T + MARGIN, so that
the launcher's own report of a job that ran too long (which PE is blocked where)
reaches the log before ctest ends the test.

    check_limits.py CTEST BUILD_DIR MARGIN
"""
import json
import subprocess
import sys

ctest, build, margin = sys.argv[1], sys.argv[2], float(sys.argv[3])
listing = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, check=True,
                         capture_output=True, text=True).stdout
bad = []
tests = json.loads(listing)["tests"]
for t in tests:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    limit = props.get("TIMEOUT")
    if limit is None:
        bad.append(f"{t['name']}: no TIMEOUT property")
        continue
    cmd = t.get("command", [])
    for i, word in enumerate(cmd):
        job = None
        if word == "--timeout" and i + 1 < len(cmd):
            job = cmd[i + 1]
        elif word.startswith("--timeout="):
            job = word.split("=", 1)[1]
        if job is not None and float(limit) < float(job) + margin:
            bad.append(f"{t['name']}: TIMEOUT {limit:g} s, but its job runs up to "
                       f"--timeout {job} s: give ctest {margin:g} s more")
for line in bad:
    print(line)
print(f"{len(tests)} tests, {len(bad)} with a missing or too short TIMEOUT")
sys.exit(1 if bad else 0)
