#!/usr/bin/env python3
"""Per-source-line and per-instruction costs (Ir) from a callgrind profile
written with --dump-instr=yes (positions: instr line). Used by
callgrind-dispatch.sh and callgrind-stack.py.

Usage: callgrind_instr.py PROFILE FILE_SUBSTRING [N]
  prints the N costliest source lines of the files whose path contains
  FILE_SUBSTRING (default N: 40)."""
import collections
import re
import sys

def parse(path):
    lines = collections.Counter()
    instrs = collections.Counter()
    names = {"fl": {}, "fn": {}, "fi": {}, "fe": {}}
    fl = fi = None
    last_addr = 0
    last_line = 0
    in_call = False
    for raw in open(path):
        raw = raw.rstrip("\n")
        m = re.match(r"^(fl|fi|fe|fn|cfi|cfl|cfn|ob|cob)=\((\d+)\)(?: (.*))?$", raw)
        if m:
            kind, idx, name = m.groups()
            key = {"cfi": "fl", "cfl": "fl", "fi": "fl", "fe": "fl", "fl": "fl", "fn": "fn", "cfn": "fn", "ob": "ob", "cob": "ob"}[kind]
            table = names.setdefault(key, {})
            if name is not None:
                table[idx] = name
            if kind == "fl":
                fl = fi = table[idx]
            elif kind in ("fi", "fe"):
                fi = table[idx]
            continue
        if raw.startswith("calls="):
            in_call = True
            continue
        m = re.match(r"^([+-]?(?:0x[0-9a-fA-F]+|\d+)|\*|[+-]\d+)\s+([+-]?\d+|\*)\s+(\d+)", raw)
        if not m:
            continue
        a, l, c = m.groups()
        if a == "*": addr = last_addr
        elif a.startswith(("+", "-")): addr = last_addr + int(a, 0)
        else: addr = int(a, 0)
        if l == "*": line = last_line
        elif l.startswith(("+", "-")): line = last_line + int(l)
        else: line = int(l)
        last_addr, last_line = addr, line
        if in_call:
            in_call = False  # inclusive cost of a call: skip
            continue
        lines[(fi, line)] += int(c)
        instrs[addr] += int(c)
    return lines, instrs

if __name__ == "__main__":
    lines, instrs = parse(sys.argv[1])
    sub = sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    sel = [(k, v) for k, v in lines.items() if k[0] and sub in k[0]]
    for (f, l), v in sorted(sel, key=lambda kv: -kv[1])[:n]:
        print(f"{v:>12,} {f.rsplit('/',1)[-1]}:{l}")
