#!/usr/bin/env bash
# Code placement alone: the bare C loop of benches/direct/liboqs_loop.c over the very liboqs.a
# kembench links, linked four times with 0, 16, 32 and 48 bytes of padding in front of liboqs's
# code, run in turn on one CPU for ROUNDS rounds (default 9). Prints, per operation, each
# variant's fastest block median and its ratio to the unpadded one: how much where the library's
# code lands moves its speed, with nothing else different. Build kembench first
# (`cargo build --release --locked`). Usage: benches/placement.sh [ALG] (default ML-KEM-768).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
alg="${1:-ML-KEM-768}"
out="$(ls -d "$root"/target/release/build/oqs-sys-*/out | head -1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cpu="$(( $(nproc) - 1 ))"
for pad in 0 16 32 48; do
  if [ "$pad" -gt 0 ]; then
    printf '__asm__(".text\\n.p2align 6\\nkembench_pad:\\n.skip %d, 0x90\\n");\n' "$pad" > "$work/pad.c"
  else
    printf '/* no padding */\n' > "$work/pad.c"
  fi
  "${CC:-cc}" -O2 -I"$out/include" -I"$root/benches/direct" "$root/benches/direct/liboqs_loop.c" \
    "$work/pad.c" "$out/lib/liboqs.a" -o "$work/loop$pad" -lpthread
done
for _ in $(seq 1 "${ROUNDS:-9}"); do
  for pad in 0 16 32 48; do
    taskset -c "$cpu" "$work/loop$pad" "$alg" keygen,encaps,decaps 40 3 | sed "s/^/pad=$pad /"
  done
done > "$work/runs.txt"
python3 - "$work/runs.txt" <<'PY'
import collections, re, sys
best = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    m = re.search(r'pad=(\d+) .*op=(\w+) .*block_medians_ns=([\d,]+)', line)
    if m:
        best[m.group(2)][int(m.group(1))].append(min(map(int, m.group(3).split(','))))
for op in ('keygen', 'encaps', 'decaps'):
    base = min(best[op][0])
    cells = [f"+{p:>2} bytes: {min(v)} ns ({min(v) / base:.3f})" for p, v in sorted(best[op].items())]
    print(f"{op:<7} " + "   ".join(cells))
PY
