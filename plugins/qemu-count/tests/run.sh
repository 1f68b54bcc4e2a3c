#!/usr/bin/env bash
# Self-test of the qemu-count plugin for one guest architecture (x86_64, default; aarch64; s390x).
# Builds the plugin and tests/loop.c (static, -O1), runs it under qemu-user with the plugin and
# checks that: two runs give byte-identical output; the loop region minus the empty region grows
# exactly linearly in N, by one TB of L instructions with one load and one store per iteration;
# each region's `total` line is the sum of its `tb` lines; on x86_64, an instruction that crosses
# a page boundary is counted once; a missing `out=` makes QEMU refuse to start.
# Needs cargo, the arch's gcc (cross for aarch64/s390x), binutils' nm and qemu-<arch>.
# Exits nonzero on any failure.
set -euo pipefail
export LC_ALL=C

arch=${1:-x86_64}
case $arch in
x86_64) cc=${CC:-gcc} ;;
aarch64 | s390x) cc=${CC:-$arch-linux-gnu-gcc} ;;
*) echo "usage: $0 [x86_64|aarch64|s390x]" >&2 && exit 2 ;;
esac
qemu=qemu-$arch
dir=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL ($arch): $*" >&2
    exit 1
}

(cd "$dir" && cargo build --release --locked --quiet)
plugin=$dir/target/release/libqemu_count.so
"$cc" -static -O1 -o "$tmp/loop" "$dir/tests/loop.c"
addr() { nm "$tmp/loop" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
begin=$(addr kembench_region_begin)
end=$(addr kembench_region_end)
[[ -n $begin && -n $end ]] || fail "marker symbols not found"

# run N NAME: runs the guest with N iterations, output in $tmp/NAME.
run() { "$qemu" -plugin "$plugin,out=$tmp/$2,begin=$begin,end=$end,mem=on" "$tmp/loop" "$1"; }
run 1000 a
run 1000 b
run 2000 c
run 3000 d
cmp -s "$tmp/a" "$tmp/b" || fail "two runs with N=1000 differ"

# Each region's total must be the sum of its tb lines; regions are 0, 1 (and 2 on x86_64).
regions=$([[ $arch == x86_64 ]] && echo 3 || echo 2)
for f in a c d; do
    awk -v want="$regions" '/^region /{ if ($2 != r++) bad = 1 } /^tb /{ i += $3 * $4; l += $5; s += $6 }
         /^total /{ if ($2 != i || $3 != l || $4 != s) bad = 1; i = l = s = 0 }
         END { exit bad || r != want }' "$tmp/$f" || fail "inconsistent output $f"
done
# delta NAME: the loop region's total minus the empty region's, as "insns loads stores".
delta() { awk '/^total /{ n++; for (k = 2; k <= 4; k++) t[n, k] = $k }
               END { print t[2, 2] - t[1, 2], t[2, 3] - t[1, 3], t[2, 4] - t[1, 4] }' "$tmp/$1"; }
read -r i1 l1 s1 < <(delta a)
read -r i2 l2 s2 < <(delta c)
read -r i3 _ _ < <(delta d)
step=$((i2 - i1))
((step == i3 - i2)) || fail "not linear in N: deltas $i1 $i2 $i3"
((step % 1000 == 0 && step > 0)) || fail "step $step is not a multiple of 1000"
len=$((step / 1000))
((l2 - l1 == 1000 && s2 - s1 == 1000)) || fail "loads/stores per iteration: $(((l2 - l1) / 1000))/$(((s2 - s1) / 1000))"
# The loop body: the one TB (region 1) whose executions grow by exactly 1000 from N=1000 to 2000.
body=$(join <(awk '/^region 1/{ r = 1 } r && /^tb /{ print $2 "/" $3, $4 }' "$tmp/a" | sort) \
    <(awk '/^region 1/{ r = 1 } r && /^tb /{ print $2 "/" $3, $4 }' "$tmp/c" | sort) |
    awk '$3 != $2 { n++; split($1, k, "/"); len = k[2]; d = $3 - $2 } END { print n + 0, len, d }')
[[ $body == "1 $len 1000" ]] || fail "loop body TB (count, length, growth) is '$body', expected '1 $len 1000'"

# x86_64: page_cross runs 4 instructions, one of which crosses a page boundary (region 2).
if [[ $arch == x86_64 ]]; then
    pc=$(addr page_cross) got=0
    while read -r va n x; do
        if ((va >= pc && va < pc + 16)); then got=$((got + n * x)); fi
    done < <(awk '/^region/{ r = $2 } r == 2 && /^tb /{ print $2, $3, $4 }' "$tmp/a")
    ((got == 4)) || fail "page_cross counted as $got instructions, not 4"
fi

# A missing out= must make QEMU refuse to start.
if "$qemu" -plugin "$plugin,begin=$begin,end=$end" "$tmp/loop" 10 2>"$tmp/err"; then
    fail "QEMU started without out="
fi
grep -q "missing required argument \`out=\`" "$tmp/err" || fail "no message for a missing out=: $(cat "$tmp/err")"

echo "ok ($arch): region 1 - region 0 = $i1 insns, $l1 loads, $s1 stores at N=1000;" \
    "+$len insns, +1 load, +1 store per iteration; deterministic"
