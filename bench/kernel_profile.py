#!/usr/bin/env python3
"""Where a CPU engine's time goes, kernel by kernel.

Reads a `perf record` of `int21-run --bench` on ENGINE, finds each sample's
function in the engine's code (the shared object inside the .int21 file,
whose symbols perf cannot see: the engine loads it from a memfd), and names
each `int21_kernel_<hash>` by the fusion group it was outlined from: the
group that holds the line of LINALG (`int21-compile --emit=linalg`) that the
kernel's arguments are located at in LLVM (`int21-opt --int21-cpu-codegen
--mlir-print-debuginfo` of LINALG). Prints the share of the samples, the
group's line and a summary of its ops and shapes, most expensive first.

Usage: kernel_profile.py ENGINE PERF_DATA LINALG LLVM [TOP]
"""
import bisect
import re
import struct
import subprocess
import sys
import tempfile
from collections import Counter


def engine_object(engine_path, out_path):
    """The engine's code: the ELF image inside the .int21 file."""
    data = open(engine_path, "rb").read()
    start = data.find(b"\x7fELF")
    if start < 0:
        sys.exit(f"{engine_path}: no code section (is it a CPU engine?)")
    shoff, = struct.unpack_from("<Q", data, start + 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, start + 0x3A)
    with open(out_path, "wb") as f:
        f.write(data[start:start + shoff + shentsize * shnum])


def symbols(so_path):
    """(address, name) of the functions, sorted, and the executable
    segment's address minus its file offset (perf reports file offsets)."""
    out = subprocess.run(["nm", "-n", "--defined-only", so_path],
                         capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    segments = subprocess.run(["readelf", "-lW", so_path], capture_output=True,
                              text=True, check=True).stdout
    delta = 0
    for line in segments.splitlines():
        parts = line.split()
        # LOAD offset vaddr paddr filesz memsz flags... align: R E.
        if parts and parts[0] == "LOAD" and "E" in parts[-2]:
            delta = int(parts[2], 16) - int(parts[1], 16)
            break
    return syms, delta


def samples(perf_data):
    """(percent, dso, symbol or address) of perf's flat report."""
    out = subprocess.run(["perf", "report", "-i", perf_data, "--sort",
                          "dso,sym", "--stdio", "-g", "none"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(.+?)\s+\[[.k]\]\s+(\S+)", line)
        if m:
            yield float(m.group(1)), m.group(2), m.group(3)


def groups_of(linalg_path):
    """Start lines of the fusion groups, and a summary of each."""
    lines = open(linalg_path).read().split("\n")
    starts = [i + 1 for i, l in enumerate(lines)
              if "int21.fusion_group" in l and "=" in l]

    def summary(start):
        ops = []
        for line in lines[start - 1:start + 400]:
            m = re.search(r"(linalg\.[a-z_0-9]+|tensor\.pad|tensor\.concat)",
                          line)
            if m and m.group(1) not in ("linalg.yield", "linalg.index"):
                shapes = re.findall(r"tensor<([0-9x]+)x[a-z]+[0-9]*>", line)
                ops.append(m.group(1).replace("linalg.", "") +
                           (f"[{shapes[-1]}]" if shapes else ""))
            if "int21.yield" in line:
                break
        return " ".join(ops[:6])

    return starts, summary


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    engine, perf_data, linalg, llvm = sys.argv[1:5]
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 30
    with tempfile.NamedTemporaryFile(suffix=".so") as so:
        engine_object(engine, so.name)
        syms, delta = symbols(so.name)
    addresses = [a for a, _ in syms]
    kernel_line = {}
    for line in open(llvm):
        m = re.search(r'llvm\.func @(int21_kernel_[0-9a-f]+)\(.*?loc\("[^"]*":(\d+):',
                      line)
        if m:
            kernel_line[m.group(1)] = int(m.group(2))
    starts, summary = groups_of(linalg)
    shares = Counter()
    for percent, dso, sym in samples(perf_data):
        if "int21-engine" in dso or "memfd" in dso:
            if sym.startswith("0x"):
                k = bisect.bisect_right(addresses, int(sym, 16) + delta) - 1
                sym = syms[k][1] if k >= 0 else "?"
            # The parallel body of a kernel (`.l2`) counts as the kernel.
            shares[re.sub(r"\..*$", "", sym)] += percent
        else:
            shares[f"[{dso.split('/')[-1]}] {sym}"] += percent
    for name, percent in shares.most_common(top):
        if name in kernel_line:
            k = bisect.bisect_right(starts, kernel_line[name]) - 1
            where = f"group@{starts[k]}" if k >= 0 else "?"
            print(f"{percent:6.2f}%  {name}  {where}  "
                  f"{summary(starts[k]) if k >= 0 else ''}")
        else:
            print(f"{percent:6.2f}%  {name}")


if __name__ == "__main__":
    main()
