#!/usr/bin/env python3
"""kernel-table.py OUTDIR: the table of kernel-table.sh's rounds: for each
case, the median over the rounds of blsim's rate and ggml's (ggml-op-perf,
and test-backend-ops where it has the case), and their ratio."""
import glob
import re
import statistics
import sys

out = sys.argv[1]
rates = {}  # (case, source) -> [rates]


def add(case, src, v):
    rates.setdefault((case, src), []).append(v)


for f in glob.glob(out + "/blsim.*.txt"):
    for line in open(f):
        m = re.match(r"Benchmark(\w+)/(\S+?)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) (GFLOPS|GB/s)", line)
        if not m:
            continue
        name, arg, v = m.group(1), m.group(2), float(m.group(3))
        if name.startswith("MulMat"):
            case = "MUL_MAT %s %s" % (name[-3:].lower(), arg)
        elif name == "SoftMax":
            case = "SOFT_MAX " + arg
        elif name == "RMSNorm":
            case = "RMS_NORM " + arg
        elif name == "Elementwise":
            case = arg + (" ne=64x16x512" if arg == "ROPE" else " ne=4096x512x1")
        else:
            fa, n, kv = re.match(r"fa=(\w+)/n=(\d+)/n_kv=(\d+)", arg).groups()
            case = "attention %s n=%s n_kv=%s" % ("flash" if fa == "true" else "", n, kv)
        add(re.sub(r"\s+", " ", case), "blsim", v)
for f in glob.glob(out + "/ggml.*.txt"):
    for line in open(f):
        m = re.match(r"(\w+)\((\S+)\)\s+\d+ runs\s+[\d.]+ us/run\s+([\d.]+) (GFLOPS|GB/s)", line)
        if not m:
            continue
        op, args, v = m.group(1), m.group(2), float(m.group(3))
        if op == "MUL_MAT":
            t, n = re.search(r"type_a=(\w+)", args).group(1), re.search(r",n=(\d+)", args).group(1)
            case = "MUL_MAT %s n=%s" % (t, n)
        elif op in ("SOFT_MAX", "RMS_NORM", "SILU", "ADD", "CPY_F16", "ROPE"):
            ne = re.search(r"ne=\[(\d+),(\d+),(\d+)\]", args).groups()
            ne = ne[:2] if op == "RMS_NORM" else ne
            case = "%s ne=%s" % (op, "x".join(ne))
        elif op == "ATTN":
            fa, n, kv = re.search(r"fa=(\d),n=(\d+),n_kv=(\d+)", args).groups()
            case = "attention %s n=%s n_kv=%s" % ("flash" if fa == "1" else "", n, kv)
        else:
            case = "%s %s" % (op, args)
        add(re.sub(r"\s+", " ", case), "ggml", v)
for f in glob.glob(out + "/tbo-softmax.*.txt") + glob.glob(out + "/tbo-mulmat.txt"):
    for line in open(f):
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        m = re.search(r"SOFT_MAX\(type=f32,ne=\[(\d+),(\d+),(\d+),1\].*?([\d.]+) GB/s", line)
        if m:
            add("SOFT_MAX ne=%sx%sx%s" % m.groups()[:3], "tbo", float(m.group(4)))
        m = re.search(r"MUL_MAT\(type_a=(f16|f32),type_b=f32,m=4096,n=(\d+),.*?([\d.]+) GFLOPS", line)
        if m:
            add("MUL_MAT %s n=%s" % m.groups()[:2], "tbo", float(m.group(3)))

cases = sorted({c for c, _ in rates}, key=lambda c: (c.split()[0], c))
med = lambda k: statistics.median(rates[k]) if k in rates else None
print("| case | unit | blsim | ggml-op-perf | test-backend-ops | blsim / ggml |")
print("|---|---|--:|--:|--:|--:|")
for c in cases:
    b, g, t = med((c, "blsim")), med((c, "ggml")), med((c, "tbo"))
    unit = "GFLOPS" if c.startswith(("MUL_MAT", "attention")) else "GB/s"
    ref = t if t is not None else g
    fmt = lambda v: "" if v is None else "%.2f" % v
    ratio = "" if b is None or ref is None else "%.2f" % (b / ref)
    print("| %s | %s | %s | %s | %s | %s |" % (c, unit, fmt(b), fmt(g), fmt(t), ratio))
