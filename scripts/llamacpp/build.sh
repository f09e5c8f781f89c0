#!/usr/bin/env bash
# Configure and build the two llama.cpp binaries blsim uses as ground truth:
#   llama-bench       (end-to-end pp/tg throughput of a GGUF model)
#   test-backend-ops  (per-op micro-benchmarks, e.g. MUL_MAT per quant type)
# CPU backend only, native ISA, no libcurl, and ggml's own thread pool
# (OpenMP off) so that llama-bench's --poll / --cpu-mask options take effect.
#
# On x86 CPUs with AMX (Sapphire Rapids and later), -march=native would also
# compile ggml's AMX backend, which repacks the 2-D Q8_0/Q4_0 weights
# (attention, output head) into AMX tiles while the 3-D expert tensors stay
# on the plain CPU path, and test-backend-ops never uses it. That mix is not
# what an ARM big/little CPU runs, so AMX is switched off by default
# (LLAMA_AMX=1 keeps it). The rest of the native ISA (AVX-512, VNNI) stays.
#
# Usage: LLAMA_SRC=/work/llama.cpp JOBS=2 LLAMA_AMX=0 scripts/llamacpp/build.sh
set -euo pipefail

LLAMA_SRC=${LLAMA_SRC:-/work/llama.cpp}
BUILD_DIR=${BUILD_DIR:-$LLAMA_SRC/build}
JOBS=${JOBS:-$(nproc)}
LLAMA_AMX=${LLAMA_AMX:-0}

EXTRA_FLAGS=""
if [ "$LLAMA_AMX" = "0" ] && [ "$(uname -m)" = "x86_64" ]; then
    # Explicit -mno-* ISA flags win over -march=native in GCC and Clang.
    EXTRA_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
fi

if [ ! -f "$LLAMA_SRC/CMakeLists.txt" ]; then
    echo "build.sh: no llama.cpp source at LLAMA_SRC=$LLAMA_SRC" >&2
    exit 1
fi

echo "llama.cpp source: $LLAMA_SRC"
echo "llama.cpp commit: $(git -C "$LLAMA_SRC" rev-parse HEAD 2>/dev/null || echo unknown)"

cmake -S "$LLAMA_SRC" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=ON \
    -DGGML_OPENMP=OFF \
    -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_SERVER=OFF \
    -DBUILD_SHARED_LIBS=ON \
    -DCMAKE_C_FLAGS="$EXTRA_FLAGS" \
    -DCMAKE_CXX_FLAGS="$EXTRA_FLAGS"

cmake --build "$BUILD_DIR" -j"$JOBS" --target llama-bench test-backend-ops

# test-backend-ops runs std::thread::hardware_concurrency() threads, and with
# glibc >= 2.35 that is the number of online CPUs, not the affinity mask, so
# `taskset -c 1 test-backend-ops` would run every CPU's worth of threads on
# one core. This preload shim makes get_nprocs() count the affinity mask:
#   LD_PRELOAD=$BUILD_DIR/bin/libnprocs-affinity.so taskset -c 1 test-backend-ops ...
# (llama-bench takes -t, and needs no shim.)
SHIM_SRC="$BUILD_DIR/nprocs-affinity.c"
cat > "$SHIM_SRC" <<'SHIM'
#define _GNU_SOURCE
#include <sched.h>
int get_nprocs(void) {
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) == 0) return CPU_COUNT(&s);
    return 1;
}
int get_nprocs_conf(void) { return get_nprocs(); }
SHIM
${CC:-cc} -O2 -shared -fPIC "$SHIM_SRC" -o "$BUILD_DIR/bin/libnprocs-affinity.so"

# ggml-op-perf (scripts/llamacpp/ggml-op-perf.c): ggml's own ops, one
# thread, at the kernel table's shapes (docs/kernels.md), against this
# build's libggml through its public headers.
HERE=$(cd "$(dirname "$0")" && pwd)
${CC:-cc} -O2 "$HERE/ggml-op-perf.c" -I"$LLAMA_SRC/ggml/include" \
    -L"$BUILD_DIR/bin" -Wl,-rpath,"$BUILD_DIR/bin" -lggml -lggml-base -lggml-cpu -lm \
    -o "$BUILD_DIR/bin/ggml-op-perf"

ls -l "$BUILD_DIR/bin/ggml-op-perf" "$BUILD_DIR/bin/llama-bench" "$BUILD_DIR/bin/test-backend-ops" "$BUILD_DIR/bin/libnprocs-affinity.so"
echo "llama.cpp commit: $(git -C "$LLAMA_SRC" rev-parse HEAD 2>/dev/null || echo unknown)"
