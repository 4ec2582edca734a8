#!/usr/bin/env bash
# Prints the interpreter's shared dispatch sequence of a binary: the
# instructions executed once per op (as often as the hottest one of the
# `match *op` line), from a callgrind profile made with --dump-instr=yes.
# Usage: callgrind-dispatch.sh BINARY PROFILE
set -euo pipefail
bin="$1"; prof="$2"
here="$(cd "$(dirname "$0")" && pwd)"
addrs="$(mktemp)"
trap 'rm -f "$addrs"' EXIT
python3 - "$prof" "$here" <<'PY' >"$addrs"
import sys
sys.path.insert(0, sys.argv[2])
import callgrind_instr as cg_lines
lines, instrs = cg_lines.parse(sys.argv[1])
top = max(instrs.values())
# the dispatch instructions all run the same, largest number of times
hot = sorted(a for a, c in instrs.items() if c == top)
print(hex(min(hot) - 0x18), hex(max(hot) + 4), top)
PY
read -r lo hi n <"$addrs"
echo "ops dispatched: $n"
objdump -d --no-show-raw-insn -M intel "$bin" --start-address="$lo" --stop-address="$hi" | tail -n +8
