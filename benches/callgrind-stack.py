#!/usr/bin/env python3
"""Executed instructions of a profile's hot code (instructions run at least
1,000 times) and those of them that read or write the stack frame
([rsp+...]: spilled registers), per op dispatched (the count of the most
often executed instruction, the interpreter's shared dispatch), from a
callgrind profile made with --dump-instr=yes and the binary's disassembly.

Usage: callgrind-stack.py BINARY PROFILE"""
import re, subprocess, sys
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgrind_instr as cg_lines  # noqa: E402

binary, profile = sys.argv[1], sys.argv[2]
_, instrs = cg_lines.parse(profile)
ops = max(instrs.values())
hot = {a: c for a, c in instrs.items() if c >= 1000}
lo, hi = min(hot), max(hot) + 16
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "intel", binary,
                      f"--start-address={hex(lo)}", f"--stop-address={hex(hi)}"],
                     capture_output=True, text=True, check=True).stdout
text = {}
for line in dis.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
    if m:
        text[int(m.group(1), 16)] = m.group(2)
total = sum(hot.values())
stack = sum(c for a, c in hot.items() if "[rsp" in text.get(a, ""))
print(f"ops {ops:,}  executed {total:,} ({total/ops:.2f}/op)  on [rsp] {stack:,} ({stack/ops:.2f}/op)")
