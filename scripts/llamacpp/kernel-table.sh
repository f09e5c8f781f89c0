#!/usr/bin/env bash
# kernel-table.sh OUTDIR [ROUNDS]: blsim's float kernels beside ggml's on
# one pinned CPU (CPU ${CPU:-1}), side by side in ROUNDS rounds (default 3)
# of: blsim's Go benchmarks at test-backend-ops' shapes
# (internal/quant: MUL_MAT f16 and f32, SOFT_MAX, RMS_NORM, the attention
# path), ggml-op-perf (ggml's own ops at the same shapes, built by
# build.sh), and test-backend-ops perf -o SOFT_MAX. test-backend-ops perf
# -o MUL_MAT runs every type for several minutes; set TBO_MULMAT=1 to add
# it once, after the rounds. Raw outputs go to OUTDIR;
# kernel-table.py OUTDIR prints the table of medians. Run it on a quiet
# machine (docs/kernels.md).
set -euo pipefail
out=${1:?usage: kernel-table.sh OUTDIR [ROUNDS]}
rounds=${2:-3}
cpu=${CPU:-1}
B=${LLAMA_BUILD:-/work/llama.cpp/build}/bin
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
qt=${QUANT_TEST:-$out/quant.test} # build it beforehand (go test -c ./internal/quant) to keep the build out of the timing
[ -x "$qt" ] || (cd "$here" && go test -c -o "$qt" ./internal/quant/)
for r in $(seq "$rounds"); do
	taskset -c "$cpu" "$qt" -test.run '^$' -test.bench 'MulMat|SoftMax|RMSNorm|Elementwise|Attention' \
		>"$out/blsim.$r.txt"
	taskset -c "$cpu" "$B/ggml-op-perf" >"$out/ggml.$r.txt"
	LD_PRELOAD="$B/libnprocs-affinity.so" taskset -c "$cpu" "$B/test-backend-ops" perf -o SOFT_MAX -b CPU \
		>"$out/tbo-softmax.$r.txt"
done
if [ "${TBO_MULMAT:-0}" = 1 ]; then
	LD_PRELOAD="$B/libnprocs-affinity.so" taskset -c "$cpu" "$B/test-backend-ops" perf -o MUL_MAT -b CPU \
		| grep -E 'type_a=(f16|f32),' >"$out/tbo-mulmat.txt"
fi
