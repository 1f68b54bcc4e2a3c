# kembench's operand check (src/ct/latency/operands.rs), run by gdb in batch mode against a
# `kembench ct-worker` under memcheck with valgrind's gdbserver (--vgdb=yes, shadow registers
# on). It reads its plan (JSON) from the file in $KEMBENCH_OPERANDS_PLAN and appends one JSON
# line per division hit to the file the plan names:
#   {"op": ..., "site": N, "undefined": {"dividend": bits, "divisor": bits}} or {"error": ...}
# Breakpoints on the divisions are armed only between a marker's entry and its return, so
# that every hit is one of that operation's own, and each site stops being checked after the
# plan's `hits` hits in one operation.
import json
import os

import gdb

MASK64 = (1 << 64) - 1
plan = json.load(open(os.environ["KEMBENCH_OPERANDS_PLAN"]))
out = open(plan["out"], "a")


def emit(**record):
    out.write(json.dumps(record) + "\n")
    out.flush()


def maps():
    """The lowest address each file is mapped at in the valgrind process (guest = host)."""
    bases = {}
    with open("/proc/%d/maps" % plan["pid"]) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 6:
                continue
            path = parts[5].strip()
            start = int(parts[0].split("-")[0], 16)
            if int(parts[2], 16) == 0 and (path not in bases or start < bases[path]):
                bases[path] = start
    return bases


def bias(obj, bases):
    """What to add to an address of `obj`'s file to get its address in the process."""
    o = plan["objects"].get(obj)
    if o is None:
        return None
    for path in (obj, os.path.realpath(obj)):
        if path in bases:
            return bases[path] - o["first_load"]
    return None


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & MASK64


def undefined_bits(part):
    """The undefined bits of one operand part: a register's shadow, or memory's V bits."""
    if part["kind"] == "reg":
        return (reg(part["reg"] + "s1") >> part["shift"]) & ((1 << part["bits"]) - 1)
    address = part["disp"] + part.get("bias", 0)
    if part.get("base"):
        address += reg(part["base"])
    if part.get("index"):
        address += reg(part["index"]) * part["scale"]
    address &= MASK64
    text = gdb.execute("monitor get_vbits %#x %d" % (address, part["bytes"]), to_string=True)
    digits = "".join(c for c in text if c in "0123456789abcdefABCDEF")
    if len(digits) < 2 * part["bytes"]:
        raise gdb.error("get_vbits %#x: %s" % (address, text.strip()))
    return int(digits[: 2 * part["bytes"]], 16)


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set language c")
gdb.execute("target remote | %s --vgdb-prefix=%s --pid=%d" % (plan["vgdb"], plan["prefix"], plan["pid"]))

bases = maps()
markers = {}
for m in plan["markers"]:
    b = bias(m["object"], bases)
    if b is None:
        emit(error="the executable %s is not mapped in process %d" % (m["object"], plan["pid"]))
        raise SystemExit
    markers[(m["address"] + b) & MASK64] = m["op"]
    gdb.execute("break *%#x" % ((m["address"] + b) & MASK64), to_string=True)

sites = {}  # run-time address -> site
breakpoints = {}  # run-time address -> gdb breakpoint number
op = None
exit_at = None
hits = {}

while True:
    try:
        gdb.execute("continue", to_string=True)
        pc = reg("pc")
    except gdb.error:
        break  # the process ended (its connection closed)
    if pc in markers and op is None:
        op = markers[pc]
        hits = {}
        exit_at = int.from_bytes(bytes(gdb.selected_inferior().read_memory(reg("sp"), 8)), "little")
        gdb.execute("tbreak *%#x" % exit_at, to_string=True)
        bases = maps()
        for i, s in enumerate(plan["sites"]):
            if op not in s["ops"]:
                continue
            b = bias(s["object"], bases)
            if b is None:
                emit(op=op, site=i, error="%s is not mapped when the marker is entered" % s["object"])
                continue
            at = (s["address"] + b) & MASK64
            sites[at] = (i, s, b)
            if at not in breakpoints:
                text = gdb.execute("break *%#x" % at, to_string=True)
                breakpoints[at] = int(text.split()[1])
            else:
                gdb.execute("enable %d" % breakpoints[at], to_string=True)
    elif pc == exit_at:
        for n in breakpoints.values():
            gdb.execute("disable %d" % n, to_string=True)
        op, exit_at = None, None
    elif pc in sites and op is not None:
        i, s, b = sites[pc]
        if op not in s["ops"]:
            continue
        try:
            seen = {}
            for operand in s["operands"]:
                total = 0
                for part in operand["parts"]:
                    part = dict(part, bias=b if part.get("rip") else 0)
                    total |= undefined_bits(part)
                seen[operand["name"]] = total
            emit(op=op, site=i, undefined=seen)
        except gdb.error as e:
            emit(op=op, site=i, error=str(e))
        hits[i] = hits.get(i, 0) + 1
        if hits[i] >= plan["hits"]:
            gdb.execute("disable %d" % breakpoints[pc], to_string=True)
out.close()
