#!/usr/bin/env bash
# Builds liboqs's own speed_kem from the liboqs sources that the oqs-sys crate carries, against
# the very liboqs.a that kembench links, and runs it beside `kembench run` for the same KEM,
# both pinned to the same CPU. Usage: benches/speed_kem.sh [ALG] (default ML-KEM-768).
set -euo pipefail
cd "$(dirname "$0")/.."
alg=${1:-ML-KEM-768}
cargo build --release --locked -q
out=$(ls -td target/release/build/oqs-sys-*/out | head -1)
src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/oqs-sys-0.11.0+liboqs-0.13.0/liboqs | head -1)
bin=target/speed_kem
cc -O3 -I "$out/include" -I "$src/tests" -o "$bin" "$src/tests/speed_kem.c" "$out/lib/liboqs.a" -lpthread -lm
cpu=$(( $(nproc) - 1 ))
echo "== liboqs speed_kem (mean and stdev over 3 s per operation), CPU $cpu"
taskset -c "$cpu" "$bin" -d 3 "$alg"
echo "== kembench run (median), CPU $cpu"
taskset -c "$cpu" target/release/kembench run --alg "$alg" --impl liboqs --ops keygen,encaps,decaps
