#!/usr/bin/env python3
"""Writes the hwloc XML files of three node designs (tests/topology/*.xml), so that
placement and NIC choice are tested on nodes this machine is not:

  milan-nps4.xml  dual-socket AMD Milan in NPS-4: 2 packages, 8 NUMA domains of 16
                  cores, an L3 per CCX of 8 cores, one Slingshot NIC per socket (cxi0
                  in NUMA 3, cxi1 in NUMA 7, each behind a PCI bridge).
  perlmutter.xml  one 64-core CPU in 4 NUMA domains, 4 GPUs (cuda0-3) and 4 NICs
                  (cxi0-3): GPU k and NIC k share a PCI switch in NUMA domain 3-k.
  frontier.xml    one 64-core CPU in 4 NUMA domains, 8 GCDs (rsmi0-7), 4 NICs: NIC j
                  sits under the PCI switch of GCDs 2j and 2j+1 (an MI250X), whose
                  NUMA domain is 3, 1, 0, 2 for j = 0..3.

One hardware thread per core keeps the files small. Run it to regenerate them:
  python3 tests/topology/gen_topologies.py tests/topology
"""
import os
import sys


def mask(cpus):
    """hwloc's bitmap syntax: 32-bit words in hex, most significant first."""
    v = 0
    for c in cpus:
        v |= 1 << c
    words = []
    while v:
        words.append(v & 0xFFFFFFFF)
        v >>= 32
    return ",".join("0x%08x" % w for w in reversed(words)) or "0x0"


class Xml:
    def __init__(self):
        self.lines = []
        self.gp = 0

    def gpi(self):
        self.gp += 1
        return self.gp

    def open(self, depth, attrs, leaf=False):
        a = " ".join('%s="%s"' % kv for kv in attrs)
        self.lines.append("  " * depth + "<object %s gp_index=\"%d\"%s>" %
                          (a, self.gpi(), "/" if leaf else ""))

    def close(self, depth):
        self.lines.append("  " * depth + "</object>")


def sets(cpus, nodes):
    return [("cpuset", mask(cpus)), ("complete_cpuset", mask(cpus)),
            ("nodeset", mask(nodes)), ("complete_nodeset", mask(nodes))]


def pci_tree(x, depth, bus, devices):
    """A host bridge, a PCI switch below it, and the devices on the switch: each
    (class, vendor:device, OS device name, osdev_type, CoProc type or None)."""
    x.open(depth, [("type", "Bridge"), ("bridge_type", "0-1"), ("depth", "0"),
                   ("bridge_pci", "0000:[%02x-%02x]" % (bus, bus + 1 + len(devices)))])
    x.open(depth + 1, [("type", "Bridge"), ("pci_busid", "0000:%02x:00.0" % bus),
                       ("pci_type", "0604 [1000:c010] [0000:0000] b0"),
                       ("bridge_type", "1-1"), ("depth", "1"),
                       ("bridge_pci", "0000:[%02x-%02x]" % (bus + 1, bus + len(devices)))])
    for i, (cls, ids, name, ostype, coproc) in enumerate(devices):
        x.open(depth + 2, [("type", "PCIDev"), ("pci_busid", "0000:%02x:00.0" % (bus + 1 + i)),
                           ("pci_type", "%s [%s] [0000:0000] 01" % (cls, ids)),
                           ("pci_link_speed", "0.000000")])
        if coproc:
            x.open(depth + 3, [("type", "OSDev"), ("name", name), ("subtype", coproc),
                               ("osdev_type", str(ostype))])
            x.lines.append("  " * (depth + 4) + '<info name="CoProcType" value="%s"/>' % coproc)
            x.close(depth + 3)
        else:
            x.open(depth + 3, [("type", "OSDev"), ("name", name), ("osdev_type", str(ostype))],
                   leaf=True)
        x.close(depth + 2)
    x.close(depth + 1)
    x.close(depth)


NIC = ("0207", "17db:0501", None, 3, None)  # Slingshot 200 (cxi), an openfabrics device
A100 = ("0302", "10de:20b0", None, 5, "CUDA")
GCD = ("0380", "1002:7408", None, 1, None)  # MI250X GCD, a GPU device (rsmi)


def dev(kind, name):
    return (kind[0], kind[1], name, kind[3], kind[4])


def node(packages, numa_per_package, cores_per_numa, ccx, distance, io):
    """io[numa] lists the PCI switches of a NUMA domain, each a list of devices."""
    x = Xml()
    ncpu = packages * numa_per_package * cores_per_numa
    nnuma = packages * numa_per_package
    x.lines += ['<?xml version="1.0" encoding="UTF-8"?>',
                '<!DOCTYPE topology SYSTEM "hwloc2.dtd">', '<topology version="2.0">']
    x.open(1, [("type", "Machine"), ("os_index", "0")] + sets(range(ncpu), range(nnuma)))
    bus = 0x01
    for p in range(packages):
        pn = range(p * numa_per_package, (p + 1) * numa_per_package)
        pc = range(pn[0] * cores_per_numa, (pn[-1] + 1) * cores_per_numa)
        x.open(2, [("type", "Package"), ("os_index", str(p))] + sets(pc, pn))
        for n in pn:
            nc = list(range(n * cores_per_numa, (n + 1) * cores_per_numa))
            x.open(3, [("type", "Group")] + sets(nc, [n]) + [("kind", "1000"), ("dont_merge", "1")])
            x.open(4, [("type", "NUMANode"), ("os_index", str(n))] + sets(nc, [n]) +
                   [("local_memory", str(64 << 30))], leaf=True)
            for l3 in range(0, cores_per_numa, ccx):
                lc = nc[l3:l3 + ccx]
                x.open(4, [("type", "L3Cache")] + sets(lc, [n]) +
                       [("cache_size", str(32 << 20)), ("depth", "3"), ("cache_linesize", "64"),
                        ("cache_associativity", "16"), ("cache_type", "0")])
                for c in lc:
                    x.open(5, [("type", "Core"), ("os_index", str(c))] + sets([c], [n]))
                    x.open(6, [("type", "PU"), ("os_index", str(c))] + sets([c], [n]), leaf=True)
                    x.close(5)
                x.close(4)
            for switch in io.get(n, []):
                pci_tree(x, 4, bus, switch)
                bus += 0x10
            x.close(3)
        x.close(2)
    x.close(1)
    x.lines.append('  <distances2 type="NUMANode" nbobjs="%d" kind="5" indexing="os">' % nnuma)
    # hwloc's length attributes count the characters of the content.
    idx = " ".join(str(n) for n in range(nnuma))
    x.lines.append('    <indexes length="%d">%s</indexes>' % (len(idx), idx))
    vals = " ".join(str(distance(a, b)) for a in range(nnuma) for b in range(nnuma))
    x.lines.append('    <u64values length="%d">%s</u64values>' % (len(vals), vals))
    x.lines.append("  </distances2>")
    x.lines.append("</topology>")
    return "\n".join(x.lines) + "\n"


def milan():
    return node(2, 4, 16, 8,
                lambda a, b: 10 if a == b else 12 if a // 4 == b // 4 else 32,
                {3: [[dev(NIC, "cxi0")]], 7: [[dev(NIC, "cxi1")]]})


def perlmutter():
    io = {3 - k: [[dev(A100, "cuda%d" % k), dev(NIC, "cxi%d" % k)]] for k in range(4)}
    return node(1, 4, 16, 8, lambda a, b: 10 if a == b else 12, io)


FRONTIER_NUMA = [3, 1, 0, 2]  # the NUMA domain of MI250X j (GCDs 2j, 2j+1) and NIC j


def frontier():
    io = {FRONTIER_NUMA[j]: [[dev(GCD, "rsmi%d" % (2 * j)), dev(GCD, "rsmi%d" % (2 * j + 1)),
                              dev(NIC, "cxi%d" % j)]] for j in range(4)}
    return node(1, 4, 16, 8, lambda a, b: 10 if a == b else 12, io)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, make in (("milan-nps4", milan), ("perlmutter", perlmutter), ("frontier", frontier)):
        with open(os.path.join(out, name + ".xml"), "w") as f:
            f.write(make())


if __name__ == "__main__":
    main()
