#!/usr/bin/env bash
# Self-test of the qemu-count plugin for one guest architecture (x86_64, default; aarch64; s390x).
# Builds the plugin and tests/loop.c (static, -O1), runs it under qemu-user with the plugin and
# checks that: two runs give byte-identical output; the loop region minus the empty region grows
# exactly linearly in N, by one TB of L instructions with one load and one store per iteration;
# each region's `total` line is the sum of its `tb` lines and of its `stack` lines (`funcs=`);
# the call chain's stacks carry exactly the instructions of the `tb` lines in their functions,
# with the right entry counts; direct recursion is one frame entered DEPTH + 1 times, mutual
# recursion DEPTH + 1 frames deep; on x86_64, an instruction that crosses a page boundary is
# counted once; a missing `out=` makes QEMU refuse to start.
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
# The functions, START END, from the sized symbols (as kembench writes them).
nm -S "$tmp/loop" | while read -r a s t n; do
    if [[ $t == [TtWw] && -n $n ]]; then printf '0x%x 0x%x\n' $((16#$a)) $((16#$a + 16#$s)); fi
done >"$tmp/funcs"

# run N NAME: runs the guest with N iterations, output in $tmp/NAME.
run() { "$qemu" -plugin "$plugin,out=$tmp/$2,begin=$begin,end=$end,mem=on,funcs=$tmp/funcs" "$tmp/loop" "$1"; }
run 1000 a
run 1000 b
run 2000 c
run 3000 d
cmp -s "$tmp/a" "$tmp/b" || fail "two runs with N=1000 differ"

# Each region's total must be the sum of its tb lines and of its stack lines (which follow it);
# regions are 0 to 3 (and 4 on x86_64).
regions=$([[ $arch == x86_64 ]] && echo 5 || echo 4)
for f in a c d; do
    awk -v want="$regions" 'function check() { if (r && (t[2] != i || t[3] != l || t[4] != s ||
                                t[2] != si || t[3] != sl || t[4] != ss || !st)) bad = 1 }
         /^region /{ check(); if ($2 != r++) bad = 1; i = l = s = si = sl = ss = st = 0 }
         /^tb /{ i += $3 * $4; l += $5; s += $6 }
         /^total /{ for (k = 2; k <= 4; k++) t[k] = $k }
         /^stack /{ si += $2; sl += $3; ss += $4; st++ }
         END { check(); exit bad || r != want }' "$tmp/$f" || fail "inconsistent output $f"
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
body=$(join <(awk '/^region /{ r = $2 == 1 } r && /^tb /{ print $2 "/" $3, $4 }' "$tmp/a" | sort) \
    <(awk '/^region /{ r = $2 == 1 } r && /^tb /{ print $2 "/" $3, $4 }' "$tmp/c" | sort) |
    awk '$3 != $2 { n++; split($1, k, "/"); len = k[2]; d = $3 - $2 } END { print n + 0, len, d }')
[[ $body == "1 $len 1000" ]] || fail "loop body TB (count, length, growth) is '$body', expected '1 $len 1000'"

# Call stacks, in the run with N=1000. lines R KIND: region R's lines of that kind.
lines() { awk -v r="$1" -v k="$2" '/^region /{ at = $2 } at == r && $1 == k' "$tmp/a"; }
# range NAME: the function's [start, end) from its symbol.
range() { nm -S "$tmp/loop" | awk -v n="$1" '$4 == n { print "0x" $1, "0x" $2 }' |
    { read -r a s && echo $((a)) $((a + s)); }; }
# tbsum R NAME...: region R's instructions in TBs of those functions, by the tb lines.
tbsum() {
    local r=$1 sum=0 va n x name lo hi
    shift
    while read -r va n x; do
        for name; do
            read -r lo hi < <(range "$name")
            if ((va >= lo && va < hi)); then sum=$((sum + n * x)); fi
        done
    done < <(lines "$r" tb | awk '{ print $2, $3, $4 }')
    echo $sum
}
# path NAME...: a stack as the stack lines write it.
path() { local name; for name; do printf ' 0x%x' "$(range "$name" | cut -d' ' -f1)"; done; }
# stack R NAME...: "SELF CALLS" of region R's stack of exactly those functions.
stack() {
    local r=$1 want
    shift
    want=$(path "$@")
    lines "$r" stack | awk -v w="$want" '{ p = ""; for (k = 6; k <= NF; k++) p = p " " $k }
        p == w { print $2, $5; found = 1 } END { if (!found) print "none" }'
}
# incl R NAME: region R's instructions on stacks that hold NAME (each stack once).
incl() {
    local a
    a=$(path "$1")
    lines "$2" stack | awk -v a="${a# }" '{ for (k = 6; k <= NF; k++) if ($k == a) { s += $2; next } }
        END { print s + 0 }'
}
expect() { [[ $2 == "$3" ]] || fail "$1: got '$2', expected '$3'"; }
# Region 2: main -> outer -> middle -> leaf, leaf called 1000 times.
expect "leaf's stack" "$(stack 2 main outer middle leaf)" "$(tbsum 2 leaf) 1000"
expect "middle's stack" "$(stack 2 main outer middle)" "$(tbsum 2 middle) 1"
expect "outer's stack" "$(stack 2 main outer)" "$(tbsum 2 outer) 1"
expect "outer inclusive" "$(incl outer 2)" "$(tbsum 2 outer middle leaf)"
# Region 3: rec(10) is one frame entered 11 times; even(10) -> odd(9) -> ... -> even(0).
expect "rec's stack" "$(stack 3 main rec)" "$(tbsum 3 rec) 11"
deep=(main even odd even odd even odd even odd even odd even)
expect "the deepest mutual recursion" "$(stack 3 "${deep[@]}" | cut -d' ' -f2)" 1
expect "even inclusive" "$(incl even 3)" "$(tbsum 3 even odd)"
outermost=$(stack 3 main even | cut -d' ' -f1)
expect "odd inclusive" "$(incl odd 3)" "$(($(tbsum 3 even odd) - outermost))"
expect "stacks in region 3" "$(lines 3 stack | wc -l)" 13

# x86_64: page_cross runs 4 instructions, one of which crosses a page boundary (region 4).
if [[ $arch == x86_64 ]]; then
    pc=$(addr page_cross) got=0
    while read -r va n x; do
        if ((va >= pc && va < pc + 16)); then got=$((got + n * x)); fi
    done < <(awk '/^region/{ r = $2 } r == 4 && /^tb /{ print $2, $3, $4 }' "$tmp/a")
    ((got == 4)) || fail "page_cross counted as $got instructions, not 4"
fi

# A missing out= must make QEMU refuse to start.
if "$qemu" -plugin "$plugin,begin=$begin,end=$end" "$tmp/loop" 10 2>"$tmp/err"; then
    fail "QEMU started without out="
fi
grep -q "missing required argument \`out=\`" "$tmp/err" || fail "no message for a missing out=: $(cat "$tmp/err")"

echo "ok ($arch): region 1 - region 0 = $i1 insns, $l1 loads, $s1 stores at N=1000;" \
    "+$len insns, +1 load, +1 store per iteration; call stacks exact; deterministic"
