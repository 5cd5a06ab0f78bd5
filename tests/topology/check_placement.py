#!/usr/bin/env python3
"""Placement and NIC choice on the three node designs of this folder, planned by
`oshrun --dry-run` (nothing starts) and checked against what this script derives
from the XML on its own: each PE's CPUs, NUMA domain, GPU and NIC at 8, 64 and 128
PEs per node (128 oversubscribes the 64-core designs), for every NIC policy, and
the errors a user meets. Also checks that gen_topologies.py still writes the
shipped files, and that hwloc's lstopo reads them when it is installed.

usage: check_placement.py OSHRUN TOPOLOGY_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

OSHRUN, DIR = sys.argv[1], sys.argv[2]
FAILED = []


def fail(msg):
    FAILED.append(msg)
    print("FAIL: " + msg)


def cpus_of(mask):
    v = int(mask.replace("0x", "").replace(",", ""), 16)
    return {c for c in range(v.bit_length()) if v >> c & 1}


class Node:
    """What the XML says, read with this script's own walk of the tree."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.numa = {}  # os index -> CPUs
        self.cores = []  # CPU sets in CPU order
        self.packages = []
        self.l3 = []
        self.nics = []  # (name, NUMA os index, switch element)
        self.gpus = {}  # name -> (NUMA os index, switch element)
        self.dist = {}

        def walk(e, up):
            t = e.get("type")
            if t == "NUMANode":
                self.numa[int(e.get("os_index"))] = cpus_of(e.get("cpuset"))
            elif t == "Core":
                self.cores.append(cpus_of(e.get("cpuset")))
            elif t == "Package":
                self.packages.append(cpus_of(e.get("cpuset")))
            elif t == "L3Cache":
                self.l3.append(cpus_of(e.get("cpuset")))
            elif t == "OSDev":
                # The nearest object with CPUs, and the NUMA node among its children.
                holder = next(a for a in reversed(up) if a.get("cpuset"))
                node = next(int(c.get("os_index")) for c in holder
                            if c.get("type") == "NUMANode")
                switch = up[-2]  # OSDev < PCIDev < switch bridge
                if e.get("osdev_type") in ("2", "3"):
                    self.nics.append((e.get("name"), node, switch))
                elif e.get("osdev_type") in ("1", "5"):
                    self.gpus[e.get("name")] = (node, switch)
            for c in e:
                if c.tag == "object":
                    walk(c, up + [e])

        for e in root:
            if e.tag == "object":
                walk(e, [])
            elif e.tag == "distances2":
                idx = [int(x) for x in e.find("indexes").text.split()]
                vals = [int(x) for x in e.find("u64values").text.split()]
                for i, a in enumerate(idx):
                    for j, b in enumerate(idx):
                        self.dist[a, b] = vals[i * len(idx) + j]
        self.cores.sort(key=min)
        self.nics.sort(key=lambda n: natural(n[0]))

    def numa_of(self, cpus):
        """The NUMA domains (kernel numbers) holding any of cpus."""
        return {m for m, s in self.numa.items() if s & cpus}

    def gpu(self, r):
        """PE r's GPU: device r mod GPUs, named with that number."""
        n = len(self.gpus)
        return next(g for g in self.gpus if int(re.sub(r"\D", "", g)) == r % n)


def expected_cpus(node, np, mapping, bind):
    """Each PE's CPUs: PEs dealt round robin over the --map-by objects, each taking
    its object's next core (wrapping when oversubscribed)."""
    out = []
    taken = {}
    for r in range(np):
        if mapping == "numa":
            objs = [node.numa[m] for m in sorted(node.numa)]
            region, k = objs[r % len(objs)], r // len(objs)
        elif mapping == "gpu":
            region = node.numa[node.gpus[node.gpu(r)][0]]
            k = taken.get(min(region), 0)
            taken[min(region)] = k + 1
        else:
            region, k = set().union(*node.cores), r
        cores = [c for c in node.cores if c <= region]
        core = cores[k % len(cores)]
        if bind == "numa":
            core = next(s for s in node.numa.values() if core <= s)
        elif bind == "package":
            core = next(s for s in node.packages if core <= s)
        out.append(core)
    return out


def natural(name):
    """Name order with digits by value (eth2 before eth10): how NICs are numbered."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def expected_nic(node, policy, r, np, cpus, gpu, nnics, mapping):
    names = [n[0] for n in node.nics][:nnics]
    use = len(names)
    if policy == "BLOCK":
        return names[r // -(-np // use)]
    if policy == "ROUND-ROBIN":
        return names[r % use]
    if policy == "USER":
        for entry in mapping.split(";"):
            nic, pes = entry.split(":")
            lo, hi = (int(x) for x in pes.split("-"))
            if lo <= r <= hi:
                return names[int(nic)]
    if policy == "NUMA":
        (home,) = node.numa_of(cpus)
        key = [node.dist[home, n[1]] for n in node.nics[:use]]
    elif gpu:  # AUTO, GPU PE: the NIC on its GPU's switch, else its NUMA domain's
        gnode, gswitch = node.gpus[gpu]
        key = [0 if n[2] is gswitch else node.dist[gnode, n[1]] for n in node.nics[:use]]
    else:  # AUTO, CPU PE: mean NUMA distance from its CPUs
        key = [sum(node.dist[m, n[1]] for c in cpus for m in node.numa if c in node.numa[m]) /
               len(cpus) for n in node.nics[:use]]
    best = [i for i, k in enumerate(key) if k == min(key)]
    return names[best[r % len(best)]]


LINE = re.compile(r"^oshrun: PE (\d+) bound to CPUs ([0-9,-]+) \((\w+)[^)]*\), NUMA ([0-9,-]+)"
                  r"(?:, GPU (\w+))?(?:, NIC (\w+) \(([A-Z-]+)\))?$")


def cpulist(s):
    out = set()
    for part in s.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out


def oshrun(args, env):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith(("SHMEM_OFI_", "SHOAL_", "HWLOC_")):
            del e[k]
    e.update(env)
    return subprocess.run([OSHRUN, "--dry-run"] + args + ["./prog"], env=e,
                          capture_output=True, text=True, timeout=60)


def check(design, np, mapping, bind, policy, env, show):
    node = NODES[design]
    args = ["-n", str(np)] + (["--map-by", mapping] if mapping else []) + \
        (["--bind-to", bind] if bind else [])
    env = dict(env, SHOAL_TOPOLOGY_FILE=os.path.join(DIR, design + ".xml"))
    p = oshrun(args, env)
    what = "%s -n %d %s%s %s" % (design, np, mapping or "", "/" + bind if bind else "",
                                 " ".join("%s=%s" % kv for kv in sorted(env.items())
                                          if kv[0] != "SHOAL_TOPOLOGY_FILE"))
    if p.returncode != 0:
        fail("%s: oshrun --dry-run exited %d: %s" % (what, p.returncode, p.stderr.strip()))
        return
    lines = p.stderr.splitlines()
    if len(lines) != np:
        fail("%s: %d report lines for %d PEs:\n%s" % (what, len(lines), np, p.stderr))
        return
    gpu_pes = mapping == "gpu" or env.get("SHOAL_DEVICE")
    want_cpus = expected_cpus(node, np, "gpu" if gpu_pes and not mapping else mapping, bind)
    nnics = int(env.get("SHMEM_OFI_NUM_NICS", len(node.nics)))
    rows = []
    for r, line in enumerate(lines):
        m = LINE.match(line)
        if not m or int(m.group(1)) != r:
            fail("%s: PE %d: report line not understood: %s" % (what, r, line))
            return
        cpus, numa, gpu, nic = cpulist(m.group(2)), cpulist(m.group(4)), m.group(5), m.group(6)
        want_gpu = node.gpu(r) if gpu_pes and node.gpus else None
        want_nic = expected_nic(node, policy, r, np, cpus, want_gpu, nnics,
                                env.get("SHMEM_OFI_NIC_MAPPING", ""))
        if cpus != want_cpus[r]:
            fail("%s: PE %d on CPUs %s, expected %s" % (what, r, m.group(2), sorted(want_cpus[r])))
        if numa != node.numa_of(cpus):
            fail("%s: PE %d: NUMA %s, expected %s" % (what, r, m.group(4), node.numa_of(cpus)))
        if gpu != want_gpu:
            fail("%s: PE %d: GPU %s, expected %s" % (what, r, gpu, want_gpu))
        if nic != want_nic:
            fail("%s: PE %d: NIC %s, expected %s" % (what, r, nic, want_nic))
        if m.group(7) != policy:
            fail("%s: PE %d: policy %s, expected %s" % (what, r, m.group(7), policy))
        rows.append("PE %d: NUMA %s%s NIC %s" % (r, m.group(4), " GPU " + gpu if gpu else "", nic))
    if show:
        print("%s [%s]: %s" % (what, policy, "; ".join(rows)))


def check_error(design, args, env, rc, text):
    env = dict(env)
    if design:
        env["SHOAL_TOPOLOGY_FILE"] = os.path.join(DIR, design + ".xml")
    p = oshrun(args, env)
    what = "%s %s %s" % (design, " ".join(args), env)
    if p.returncode != rc or not re.search(text, p.stderr):
        fail("%s: expected exit %d and /%s/, got %d: %s" % (what, rc, text, p.returncode,
                                                            p.stderr.strip()))
    else:
        print("error as expected: " + p.stderr.splitlines()[0])


NODES = {d: Node(os.path.join(DIR, d + ".xml")) for d in ("milan-nps4", "perlmutter", "frontier")}


def main():
    # The shipped files are the generator's, and hwloc reads them.
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(DIR, "gen_topologies.py"), tmp], check=True)
        for d in NODES:
            if open(os.path.join(tmp, d + ".xml")).read() != open(os.path.join(DIR, d + ".xml")).read():
                fail("%s.xml differs from what gen_topologies.py writes; rerun it" % d)
    lstopo = shutil.which("lstopo-no-graphics")
    for d, node in NODES.items():
        if lstopo:
            p = subprocess.run([lstopo, "--input", os.path.join(DIR, d + ".xml")],
                               capture_output=True, text=True, timeout=60)
            if p.returncode or p.stderr:
                fail("lstopo cannot read %s.xml: %s" % (d, p.stderr))
        print("%s: %d packages, %d NUMA, %d L3, %d cores, NICs %s, GPUs %s" %
              (d, len(node.packages), len(node.numa), len(node.l3), len(node.cores),
               [n[0] for n in node.nics], sorted(node.gpus)))

    for d, node in NODES.items():
        n = len(node.nics)
        for np in (8, 64, 128):
            show = np == 8
            check(d, np, "numa", None, "AUTO", {}, show)
            check(d, np, "numa", None, "BLOCK", {"SHMEM_OFI_NUM_NICS": str(n)}, show)
            check(d, np, None, None, "ROUND-ROBIN", {"SHMEM_OFI_NIC_POLICY": "round-robin"}, show)
            check(d, np, "numa", "numa", "NUMA", {"SHMEM_OFI_NIC_POLICY": "NUMA"}, show)
            half = np // 2
            check(d, np, None, None, "USER",
                  {"SHMEM_OFI_NIC_POLICY": "USER",
                   "SHMEM_OFI_NIC_MAPPING": "1:0-%d; 0:%d-%d" % (half - 1, half, np - 1)}, show)
            check(d, np, "numa", None, "BLOCK", {"SHMEM_OFI_NUM_NICS": "1"}, show)
            if node.gpus:
                check(d, np, None, None, "AUTO", {"SHOAL_DEVICE": "emu"}, show)
                check(d, np, "gpu", "numa", "AUTO", {}, show)
        # A PE over a whole socket: AUTO takes its socket's NIC.
        check(d, 4, "numa", "package", "AUTO", {}, True)

    # Two nodes of 128: the plan of the first, not handed to another launcher.
    p = oshrun(["-n", "256", "-N", "128", "--map-by", "numa"],
               {"SHOAL_TOPOLOGY_FILE": os.path.join(DIR, "milan-nps4.xml")})
    lines = p.stderr.splitlines()
    if p.returncode or lines[:1] != ["oshrun: --dry-run: the first node's 128 PEs of 256"] or \
            len(lines) != 129 or not lines[-1].startswith("oshrun: PE 127 bound to CPUs 127 "):
        fail("--dry-run -n 256 -N 128: exit %d: %s" % (p.returncode, "\n".join(lines[:3] + lines[-1:])))
    check_error("milan-nps4", ["-n", "2", "--bind-to", "package"], {"SHMEM_OFI_NIC_POLICY": "NUMA"},
                1, r"PE 0: SHMEM_OFI_NIC_POLICY=NUMA, but the PE's CPUs \(0-63\) span several "
                   r"NUMA domains; bind each PE inside one")
    check_error("milan-nps4", ["-n", "4"], {"SHMEM_OFI_NIC_POLICY": "USER",
                                            "SHMEM_OFI_NIC_MAPPING": "0:0-1; 1:2"},
                1, r"PE 0: SHMEM_OFI_NIC_MAPPING=\"0:0-1; 1:2\" maps no NIC for local PE 3")
    check_error("milan-nps4", ["-n", "4"], {"SHMEM_OFI_NIC_POLICY": "USER",
                                            "SHMEM_OFI_NIC_MAPPING": "0:0-1; 2:2-3"},
                1, r"PE 0: SHMEM_OFI_NIC_MAPPING=\"0:0-1; 2:2-3\" names NIC 2, but the job "
                   r"uses 2 NICs \(0 to 1\)")
    check_error("milan-nps4", ["-n", "4"], {"SHMEM_OFI_NIC_POLICY": "USER"},
                1, r"PE 0: SHMEM_OFI_NIC_POLICY=USER needs SHMEM_OFI_NIC_MAPPING")
    check_error("perlmutter", ["-n", "4"], {"SHMEM_OFI_NUM_NICS": "2:0,5"},
                1, r"PE 0: SHMEM_OFI_NUM_NICS=\"2:0,5\" names NIC 5, but the provider offers 4")
    check_error("milan-nps4", ["-n", "4", "--map-by", "gpu"], {},
                2, r"--map-by gpu: the topology \(hwloc, file .*milan-nps4.xml\) has no GPUs")
    check_error(None, ["-n", "4"], {"SHOAL_TOPOLOGY_FILE": os.path.join(DIR, "absent.xml")},
                2, r"cannot read the topology file .*absent.xml")
    check_error(None, ["-n", "4", "--map-by", "ppr"], {}, 2, r"--map-by wants core, .*numa")
    if FAILED:
        print("%d checks failed" % len(FAILED))
        sys.exit(1)
    print("every placement and NIC choice as expected")


main()
