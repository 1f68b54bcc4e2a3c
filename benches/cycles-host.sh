#!/usr/bin/env bash
# The host check of `profile --cpus`: this machine's model's estimate of each operation against
# the cycles the operation takes here, measured.
#
# This VM has no cycle counter (perf_event_open fails) and its clock moves between speed states,
# so the core's cycles are measured as time × the core's clock, both taken in the fast state:
# the clock from a dependent chain of single-cycle adds (8 per loop iteration, the loop's own
# counter and branch beside them), timed with CLOCK_MONOTONIC, the highest of 15 rounds; the time
# from `kembench run`'s best-round medians. The two are taken in turns, three times, and the
# fastest of each kept. Instruction counts and estimates are exact and do not depend on load.
#
# Usage: benches/cycles-host.sh [ALG] [IMPLS]   (default: ML-KEM-768 and its native builds)
# Needs a built kembench (cargo build --release), gcc, python3 and llvm-19. Quote its output,
# never its figures from another run: the clock is measured in this one.
set -euo pipefail
cd "$(dirname "$0")/.."
alg="${1:-ML-KEM-768}"
impls="${2:-liboqs,pqclean/clean,pqclean/avx2,libcrux/avx2,libcrux/portable,aws-lc,openssl}"
kb=./target/release/kembench
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat >"$work/clock.c" <<'C'
#include <stdio.h>
#include <stdint.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(void) {
  double best = 0;
  for (int r = 0; r < 15; r++) {
    uint64_t x = 0;
    long n = 50000000;
    double t0 = now();
    for (long i = 0; i < n; i++)
      __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"
                       "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0" : "+r"(x));
    double ghz = 8.0 * n / (now() - t0) / 1e9;
    if (ghz > best) best = ghz;
  }
  printf("%.4f\n", best);
  return 0;
}
C
gcc -O2 -o "$work/clock" "$work/clock.c"

for i in 1 2 3; do
  "$work/clock" >>"$work/ghz"
  "$kb" run --no-store --alg "$alg" --impl "$impls" --rounds 6 --time-budget 1 \
    --json "$work/run$i.json" >/dev/null 2>&1
done
"$work/clock" >>"$work/ghz"
"$kb" profile --no-store --alg "$alg" --impl "$impls" --seeds 1 --cpus default \
  --json "$work/profile.json" >/dev/null 2>"$work/profile.err" || {
  cat "$work/profile.err" >&2
  exit 1
}

python3 - "$work" <<'PY'
import json, statistics, sys, glob
work = sys.argv[1]
ghz = max(float(x) for x in open(f"{work}/ghz"))
clocks = [float(x) for x in open(f"{work}/ghz")]
best = {}
for f in glob.glob(f"{work}/run*.json"):
    for r in json.load(open(f))["results"]:
        for o in r.get("operations", []):
            ns = o.get("best_round_median_ns")
            if ns:
                k = (r["algorithm"], r["implementation"], o["operation"])
                best[k] = min(best.get(k, ns), ns)
p = json.load(open(f"{work}/profile.json"))
host = p["config"]["cpus"][0]["cpu"]
print(f"clock: {', '.join(f'{c:.3f}' for c in clocks)} GHz (fastest {ghz:.3f}); "
      f"estimates: {p['config']['llvm']}, model {host}")
print(f"{'algorithm':<11} {'implementation':<18} {'op':<7} {'instructions':>12} {'estimate':>10} {'measured':>10} {'error':>8}")
errors = []
for r in p["results"]:
    for o in r["operations"]:
        e = next((x for x in o.get("estimates", []) if x["cpu"] == host), None)
        ns = best.get((r["algorithm"], r["implementation"], o["operation"]))
        if not e or not ns:
            continue
        measured = ns * ghz
        err = e["cycles"] / measured - 1
        errors.append(abs(err))
        print(f"{r['algorithm']:<11} {r['implementation']:<18} {o['operation']:<7} {o['analysis']['instructions']:>12,} "
              f"{e['cycles']:>10,} {measured:>10,.0f} {100*err:>+7.1f}%")
if errors:
    print(f"|estimate/measured - 1| over {len(errors)} operations: median {100*statistics.median(errors):.1f}%, "
          f"worst {100*max(errors):.1f}%")
PY
