#!/usr/bin/env python3
"""Time to `bestmove` under `go movetime 1000` with a runaway advice program.

The programs are those of the `runaway_*` tests in chess-core/cli/tests/uci.rs: an endless loop
over the heaviest intrinsics (GetExchngCtrl, ExchngCtrl, orExchngCtrl, GetControl), in `main()`
for AdviceMode root and in the `Evaluate()` hook for AdviceMode node. For each mode and backend
the engine is started afresh, the program set as CheProgram, and the wall time from sending
`go movetime 1000` to reading `bestmove` is measured; the table gives the fastest, the median
and the slowest of the repetitions, and the `info string` lines the engine sent.

    cargo build --release -p che-cli --bin che-engine
    python3 benches/runaway_uci.py target/release/che-engine [REPETITIONS]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

SPIN = """
    while 1 do
        n := n + GetExchngCtrl(?, sqrs);
        if ExchngCtrl(w, ..) then n := n + 1; end;
        if orExchngCtrl(b, ..) then n := n + 1; end;
        n := n + GetControl(wQ, sqrs);
    end;"""

PROGRAMS = {
    "root": f"list sqrs[65];\nprocedure main()\nvar n;\nbegin\n{SPIN}\nend;\n",
    "node": (
        "list sqrs[65];\nprocedure main()\nbegin\n  SetSqrs(wN, 10, e5);\nend;\n"
        f"function Evaluate()\nvar n;\nbegin\n{SPIN}\n  return n;\nend;\n"
    ),
}


def one_run(engine, program, backend, mode):
    p = subprocess.Popen(
        [engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    p.stdin.write(
        f"uci\nsetoption name CheProgram value {program}\n"
        f"setoption name CheBackend value {backend}\n"
        f"setoption name AdviceMode value {mode}\nisready\n"
    )
    p.stdin.flush()
    for line in p.stdout:
        if line.strip() == "readyok":
            break
    p.stdin.write("position startpos\ngo movetime 1000\n")
    p.stdin.flush()
    started = time.monotonic()
    elapsed, notes = None, []
    for line in p.stdout:
        if line.startswith("info string"):
            notes.append(line.strip())
        if line.startswith("bestmove"):
            elapsed = time.monotonic() - started
            break
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait(timeout=30)
    if elapsed is None:
        raise SystemExit(f"{mode} {backend}: no bestmove")
    return elapsed, notes


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    engine = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        print("| AdviceMode | CheBackend | fastest (ms) | median (ms) | slowest (ms) |")
        print("|---|---|---:|---:|---:|")
        all_notes = set()
        for mode, source in PROGRAMS.items():
            path = os.path.join(tmp, f"runaway_{mode}.che")
            with open(path, "w") as f:
                f.write(source)
            for backend in ["interp", "jit"]:
                times = []
                for _ in range(reps):
                    t, notes = one_run(engine, path, backend, mode)
                    times.append(t * 1000)
                    all_notes.update(n.replace(tmp, "TMP") for n in notes)
                print(
                    f"| {mode} | {backend} | {min(times):.0f} | "
                    f"{statistics.median(times):.0f} | {max(times):.0f} |",
                    flush=True,
                )
        print()
        for n in sorted(all_notes):
            print(n)


if __name__ == "__main__":
    main()
