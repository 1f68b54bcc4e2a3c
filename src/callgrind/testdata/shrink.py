#!/usr/bin/env python3
"""Shrinks a callgrind dump taken with --separate-callers for a test fixture: the frames
above MARKER become `kembench::profile::worker'main` (as under the real worker), contexts
outside the marker other than its caller are dropped (they carry only calls), and header
noise goes. Costs are untouched.

Usage: shrink.py [--compress] [--collapse-lines] CG_OUT_FILE MARKER OUT_FILE
  --compress        write names once, then as `(id)` (callgrind's --compress-strings=yes form)
  --collapse-lines  one self-cost line per context and source file (the sum, at the first line)
"""
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
flags = [a for a in sys.argv[1:] if a.startswith("--")]
src, marker, dst = args
COMPRESS = "--compress" in flags
COLLAPSE = "--collapse-lines" in flags
ABOVE = ["kembench::profile::worker", "main"]

def frames(name):
    return name.split("'")

def marker_index(fr):
    idx = [i for i, f in enumerate(fr) if f == marker]
    return idx[-1] if idx else None

def rename(name):
    fr = frames(name)
    m = marker_index(fr)
    if m is None:
        return name
    return "'".join(fr[: m + 1] + ABOVE)

lines = open(src).read().split("\n")
header, body = [], []
i = 0
while i < len(lines) and not lines[i].startswith(("ob=", "fl=", "fn=")):
    l = lines[i]
    if not l.startswith(("desc: Timerange", "pid:", "creator:")):
        header.append(l)
    i += 1
ob = fl = None
blocks = []  # (ob, fl, fnname, [lines])
cur = None
tail = []
for l in lines[i:]:
    if l.startswith("ob="):
        ob = l; continue
    if l.startswith("fl="):
        fl = l; continue
    if l.startswith("fn="):
        cur = [ob, fl, l[3:], []]
        blocks.append(cur); continue
    if l.startswith(("totals:", "summary:")):
        tail.append(l); cur = None; continue
    if cur is not None:
        cur[3].append(l)

out = list(header)
last_ob = last_fl = None
def emit_state(ob, fl):
    global last_ob, last_fl
    if ob and ob != last_ob:
        out.append(ob); last_ob = ob
    if fl and fl != last_fl:
        out.append(fl); last_fl = fl

for ob, fl, name, body in blocks:
    fr = frames(name)
    has_marker = marker_index(fr) is not None
    has_self = False
    pending = False
    for l in body:
        if l.startswith("calls="):
            pending = True; continue
        if l and (l[0].isdigit() or l[0] in "+-*"):
            if pending:
                pending = False
            else:
                has_self = True
    if has_marker or has_self:
        emit_state(ob, fl)
        out.append("fn=" + rename(name))
        for l in body:
            if l.startswith("cfn="):
                l = "cfn=" + rename(l[4:])
            out.append(l)
        continue
    # Outside the marker: keep only calls into the marker itself, from the worker.
    keep, j = [], 0
    while j < len(body):
        l = body[j]
        if l.startswith("cfn=") and marker_index(frames(l[4:])) == 0:
            k = j - 1
            pre = []
            while k >= 0 and body[k].startswith(("cob=", "cfi=", "cfl=")):
                pre.insert(0, body[k]); k -= 1
            keep += pre + ["cfn=" + rename(l[4:]), body[j + 1], body[j + 2]]
            j += 3
            continue
        j += 1
    if keep:
        emit_state(ob, fl)
        out.append("fn=" + "'".join(ABOVE))
        out += keep
out.append("")
out += tail

def is_cost(l):
    return bool(l) and (l[0].isdigit() or l[0] in "+-*")

if COLLAPSE:
    # One self-cost line per (context, source file): the sum, at the first line seen.
    res, j = [], 0
    fl_now = None
    while j < len(out):
        l = out[j]
        if l.startswith("fl="):
            fl_now = l[3:]
        if not l.startswith("fn="):
            res.append(l); j += 1; continue
        res.append(l); j += 1
        calls, sums, order, file = [], {}, [], fl_now
        pending = []
        while j < len(out) and not out[j].startswith(("fn=", "ob=", "fl=", "totals:", "summary:")):
            b = out[j]; j += 1
            if b.startswith(("fi=", "fe=")):
                file = b[3:]; continue
            if b.startswith(("cob=", "cfi=", "cfl=", "cfn=")):
                pending.append(b); continue
            if b.startswith("calls="):
                calls += pending + [b, out[j]]; pending = []; j += 1; continue
            if is_cost(b):
                f = b.split()
                if file not in sums:
                    sums[file] = [f[0], [0] * 9]; order.append(file)
                for k, v in enumerate(f[1:]):
                    sums[file][1][k] += int(v)
                continue
            if b.strip():
                res.append(b)
        res += calls
        for file in order:
            line, costs = sums[file]
            if file != fl_now:
                res.append("fi=" + file)
            while costs and costs[-1] == 0:
                costs.pop()
            res.append(" ".join([line] + [str(c) for c in costs]))
            if file != fl_now:
                res.append("fe=" + fl_now)
        res.append("")
    out = res

if COMPRESS:
    ids = {"f": {}, "s": {}, "o": {}}
    space = {"fn": "f", "cfn": "f", "fl": "s", "fi": "s", "fe": "s", "cfi": "s", "cfl": "s", "ob": "o", "cob": "o"}
    res = []
    for l in out:
        key, eq, val = l.partition("=")
        if eq and key in space:
            table = ids[space[key]]
            if val in table:
                l = f"{key}=({table[val]})"
            else:
                table[val] = len(table) + 1
                l = f"{key}=({table[val]}) {val}"
        res.append(l)
    out = res
text = "\n".join(out) + "\n"
while "\n\n\n" in text:
    text = text.replace("\n\n\n", "\n\n")
open(dst, "w").write(text)
print(dst, len(text))
