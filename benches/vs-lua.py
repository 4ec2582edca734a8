#!/usr/bin/env python3
"""Whole-process times of the core benchmark programs against their Lua twins.

Usage:
  python3 benches/vs-lua.py [--che PATH] [--old PATH] [--backend B]... [--runs N]
                            [--programs a,b,...]

For every program NAME with both benches/che/NAME.che and benches/lua/NAME.lua,
runs, interleaved, N times each (best time kept):
  che run benches/che/NAME.che --backend B         (for each --backend, default interp)
  OLD run benches/che/NAME.che --backend B         (only with --old: another build of che)
  luajit -joff benches/lua/run.lua benches/lua/NAME.lua 1
  luajit       benches/lua/run.lua benches/lua/NAME.lua 1
and prints a Markdown table of the best wall-clock times (whole process: start-up,
compilation and the run) with the ratios che / luajit -joff, che / luajit and, with
--old, che / old. Every command's printed result is checked against the others'
before a time counts
(Lua against Lua, che against che).

--che defaults to target/release/che (build it with `cargo build --release -p che-cli`).
Needs Debian's `luajit`.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def che_result(out):
    """What `che run` printed (the programs return their result without writing it, so
    this is empty for them; the test suite checks the returned values)."""
    return ("che", out)


def lua_result(out):
    """The result run.lua prints after the time."""
    parts = out.split()
    return ("lua", parts[1] if len(parts) >= 2 else None)


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return dt, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--che", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "che"))
    ap.add_argument("--old", default=None, help="another che binary to compare with")
    ap.add_argument("--backend", action="append", default=None)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--programs", default=None)
    args = ap.parse_args()
    backends = args.backend or ["interp"]
    che_dir = os.path.join(HERE, "che")
    lua_dir = os.path.join(HERE, "lua")
    names = sorted(n[:-4] for n in os.listdir(che_dir) if n.endswith(".che")
                   and os.path.exists(os.path.join(lua_dir, n[:-4] + ".lua")))
    if args.programs:
        names = [n for n in names if n in args.programs.split(",")]
    runner = os.path.join(lua_dir, "run.lua")
    cols = []
    for b in backends:
        cols.append(("che %s" % b, [args.che, "run", None, "--backend", b], che_result))
        if args.old:
            cols.append(("old %s" % b, [args.old, "run", None, "--backend", b], che_result))
    cols.append(("luajit -joff", ["luajit", "-joff", runner, None, "1"], lua_result))
    cols.append(("luajit", ["luajit", runner, None, "1"], lua_result))
    header = [c[0] for c in cols]
    ratios = []
    for b in backends:
        ratios.append(("che %s / luajit -joff" % b, "che %s" % b, "luajit -joff"))
        ratios.append(("che %s / luajit" % b, "che %s" % b, "luajit"))
        if args.old:
            ratios.append(("che %s / old" % b, "che %s" % b, "old %s" % b))
    print("| program | " + " | ".join(header) + " | " + " | ".join(r[0] for r in ratios) + " |")
    print("|---" + "|---:" * (len(header) + len(ratios)) + "|")
    for name in names:
        best = {}
        results = {}
        for _ in range(args.runs):
            for label, cmd, parse in cols:
                src = os.path.join(lua_dir if "lua" in label else che_dir,
                                   name + (".lua" if "lua" in label else ".che"))
                full = [src if a is None else a for a in cmd]
                dt, out = timed(full)
                kind, got = parse(out)
                want = results.setdefault(kind, got)
                if got != want:
                    sys.exit("%s: %s printed %r, expected %r" % (name, label, got, want))
                best[label] = min(best.get(label, dt), dt)
        cells = ["%.1f ms" % (best[h] * 1e3) for h in header]
        rc = ["%.2f" % (best[a] / best[b]) for _, a, b in ratios]
        print("| %s | %s | %s |" % (name, " | ".join(cells), " | ".join(rc)))


if __name__ == "__main__":
    main()
