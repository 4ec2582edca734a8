#!/usr/bin/env python3
"""Splits a callgrind profile of `che run FILE --backend interp` into phases.

Usage: callgrind-phases.py CALLGRIND_OUT...   (prints one Markdown row per file)

The phases are inclusive costs of functions found in the profile
(callgrind_annotate --inclusive=yes):
  start-up and exit  total less the `che` binary's main (loader, relocation,
                     runtime start, exit);
  front end          the Che++ compiler;
  optimizer          the loophole optimizer;
  verify             Program::new (every call);
  translate          Interpreter::new (the interpreter's translation);
  execute            the interpreter's call of main();
  rest of main       che::main less the phases above (argument parsing, file
                     reading, the FEN, the advice host, output).
"""
import re
import subprocess
import sys

PHASES = [
    ("front end", [r"^chepp::compile_with", r"^cvm::che::compile_with"]),
    ("optimizer", [r"cvm::opt::optimize_with", r"cvm::opt::optimize\b"]),
    ("verify", [r"cvm::verify::Program::new"]),
    ("translate", [r"cvm::interp::Interpreter::new"]),
    ("execute", [r"<cvm::interp::Interpreter as cvm::vm::Vm>::call\b", r"cvm::interp::Interpreter::call\b"]),
]


def functions(path):
    """Inclusive cost of every function (the entries that name their object)."""
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
        check=True, capture_output=True, text=True).stdout
    total = None
    costs = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not m:
            continue
        value = int(m.group(1).replace(",", ""))
        rest = m.group(2)
        if rest.startswith("PROGRAM TOTALS"):
            total = value
            continue
        if not rest.endswith("]"):
            continue  # a file-level share of an inlined function
        name = rest.rsplit(" [", 1)[0].split(":", 1)[-1]
        costs[name] = max(costs.get(name, 0), value)
    return total, costs


def find(costs, patterns):
    for p in patterns:
        hits = [v for k, v in costs.items() if re.search(p, k)]
        if hits:
            return max(hits)
    return 0


def main():
    names = ["start-up and exit"] + [p for p, _ in PHASES] + ["rest of main", "total"]
    print("| profile | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for path in sys.argv[1:]:
        total, costs = functions(path)
        che_main = costs.get("che::main", 0)
        parts = [find(costs, pats) for _, pats in PHASES]
        row = [total - che_main] + parts + [che_main - sum(parts), total]
        print(f"| {path.rsplit('/', 1)[-1]} | " + " | ".join(f"{v:,}" for v in row) + " |")


if __name__ == "__main__":
    main()
