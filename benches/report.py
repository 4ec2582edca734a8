#!/usr/bin/env python3
"""Turns criterion's estimates into the ratio tables of docs/benchmarks.md.

Usage: python3 benches/report.py PREFIX [BASELINE]
Reads target/criterion/PREFIX_*/<impl>/new/estimates.json (criterion writes
group "vm/fib" to the folder "vm_fib") and prints a Markdown table: one row per
workload, one column per implementation (median time), then each
implementation's time divided by BASELINE's (default: interp). Ratios below 1
mean faster than the baseline.
"""
import json
import os
import sys

def main():
    prefix = sys.argv[1]
    baseline = sys.argv[2] if len(sys.argv) > 2 else "interp"
    root = os.environ.get("CARGO_TARGET_DIR", "target")
    crit = os.path.join(root, "criterion")
    rows = {}
    impls = []
    for group in sorted(os.listdir(crit)):
        if not group.startswith(prefix + "_"):
            continue
        workload = group[len(prefix) + 1:]
        for impl in sorted(os.listdir(os.path.join(crit, group))):
            est = os.path.join(crit, group, impl, "new", "estimates.json")
            if not os.path.exists(est):
                continue
            with open(est) as f:
                median = json.load(f)["median"]["point_estimate"]
            rows.setdefault(workload, {})[impl] = median
            if impl not in impls:
                impls.append(impl)
    order = ["native", "jit", "interp", "interp-noopt", "luajit", "luajit-joff", "lua5.4"]
    impls.sort(key=lambda i: (order.index(i) if i in order else len(order), i))

    def fmt(ns):
        return "%.2f ms" % (ns / 1e6) if ns >= 1e5 else "%.1f us" % (ns / 1e3)

    print("| workload | " + " | ".join(impls) + " | " +
          " | ".join("%s / %s" % (i, baseline) for i in impls if i != baseline) + " |")
    print("|---" * (1 + len(impls) + len(impls) - 1) + "|")
    for w in sorted(rows):
        r = rows[w]
        cells = [fmt(r[i]) if i in r else "-" for i in impls]
        ratios = []
        for i in impls:
            if i == baseline:
                continue
            if i in r and baseline in r:
                ratios.append("%.2f" % (r[i] / r[baseline]))
            else:
                ratios.append("-")
        print("| " + w + " | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")

if __name__ == "__main__":
    main()
