#!/usr/bin/env python3
"""The instruction-count guard: machine instructions (callgrind) of the core's
measurements, compared with the committed baselines.

Usage:
  python3 benches/icount.py check  [--bin PATH] [--baseline FILE] [--only PREFIX]
  python3 benches/icount.py show   [--bin PATH] [--only PREFIX]
  python3 benches/icount.py update [--bin PATH] [--baseline FILE]

Each measurement of `icount --list` (benches/src/bin/icount.rs: the benchmark
programs on interp, baseline, cranelift and auto; Cranelift's compilation of
the bundled program; perft 5; one engine search with node-level advice; the
bundled program's leaf hook on the interpreter, the JIT and as its native
twin) runs
once under `valgrind --tool=callgrind`, counting only the instructions executed
inside the binary's `measured` function (so start-up and the preparation that
is not measured are left out). Counts are exact and repeatable for one binary.

check   counts every measurement and fails (exit 1) when one is more than
        --tolerance percent (default 3) above its baseline, or when a
        measurement has no baseline or a baseline no measurement.
show    prints the counts (and, with a baseline, the change) without judging.
update  writes the counts as the new baseline (with --only, the other rows keep
        theirs). A baseline changes only in a commit of its own that says why.

--bin defaults to the release build of the `icount` binary
(`cargo build --release -p che-benches --bin icount`, target/release/icount):
the profile users run. Two measurements run at a time (--jobs).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BASELINE = os.path.join(HERE, "icount-baseline.txt")


def default_bin():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "icount")


def count(binary, what):
    """Instructions executed inside `measured` for one measurement."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
               "--collect-atstart=no", "--toggle-collect=icount::measured",
               binary, what]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT)
        if p.returncode != 0:
            raise RuntimeError("%s failed (exit %d):\n%s%s" % (what, p.returncode, p.stdout,
                                                               p.stderr[-4000:]))
        total = None
        with open(out) as f:
            for line in f:
                if line.startswith("totals:") or line.startswith("summary:"):
                    total = int(line.split()[1])
        if not total:
            raise RuntimeError("%s: no instructions counted\n%s" % (what, p.stderr[-4000:]))
        return total


def read_baseline(path):
    base = {}
    if not os.path.exists(path):
        return base
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, n = line.split()
            base[name] = int(n)
    return base


def measure_all(binary, only, jobs):
    listed = subprocess.run([binary, "--list"], stdout=subprocess.PIPE, text=True, check=True)
    names = [n for n in listed.stdout.split() if not only or n.startswith(only)]
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(count, binary, n): n for n in names}
        for fut in concurrent.futures.as_completed(futures):
            counts[futures[fut]] = fut.result()
    return names, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["check", "show", "update"])
    ap.add_argument("--bin", default=default_bin())
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--only", default=None, help="only measurements starting with this")
    ap.add_argument("--tolerance", type=float, default=3.0, help="percent (check)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not os.path.exists(args.bin):
        sys.exit("no icount binary at %s (build it: cargo build --release -p che-benches "
                 "--bin icount)" % args.bin)
    try:
        names, counts = measure_all(args.bin, args.only, args.jobs)
    except RuntimeError as e:
        sys.exit(str(e))
    base = read_baseline(args.baseline)
    if args.mode == "update":
        # With --only, the rows it leaves out keep their baselines.
        order = names
        if args.only:
            listed = subprocess.run([args.bin, "--list"], stdout=subprocess.PIPE, text=True,
                                    check=True).stdout.split()
            order = [n for n in listed if n in counts or n in base]
        with open(args.baseline, "w") as f:
            f.write("# Machine instructions of each measurement of benches/icount.py (callgrind,\n"
                    "# inside icount's `measured`), counted on the release build. Change only in\n"
                    "# a commit of its own that says why.\n")
            for n in order:
                f.write("%s %d\n" % (n, counts.get(n, base.get(n))))
        print("wrote %d baselines to %s (%d measured now)" % (len(order), args.baseline,
                                                             len(names)))
        return
    failed = []
    print("| measurement | baseline | now | change |")
    print("|---|---:|---:|---:|")
    for n in names:
        now = counts[n]
        if n in base:
            change = 100.0 * (now - base[n]) / base[n]
            mark = ""
            if change > args.tolerance:
                mark = " SLOWER"
                failed.append("%s: %+.2f%%" % (n, change))
            print("| %s | %d | %d | %+.2f%%%s |" % (n, base[n], now, change, mark))
        else:
            print("| %s | - | %d | - |" % (n, now))
            if args.mode == "check":
                failed.append("%s: no baseline" % n)
    if args.mode == "check" and not args.only:
        for n in base:
            if n not in counts:
                failed.append("%s: baseline without a measurement" % n)
    if args.mode == "check":
        if failed:
            print("\ninstruction-count guard FAILED (tolerance %.1f%%):" % args.tolerance)
            for f in failed:
                print("  " + f)
            sys.exit(1)
        print("\ninstruction-count guard: %d measurements within %.1f%% of their baselines"
              % (len(names), args.tolerance))


if __name__ == "__main__":
    main()
