// ggml-op-perf times single ggml ops, and llama.cpp's attention subgraph,
// on ggml's CPU backend with one thread, for the kernel table of
// docs/kernels.md: the ops test-backend-ops perf has no case for at
// llama.cpp c392e50 (RMS_NORM, ROPE, SILU, the attention path with and
// without flash attention), and MUL_MAT f16/f32 and SOFT_MAX as a check on
// test-backend-ops' own figures. It uses ggml's public API only (ggml.h,
// ggml-backend.h, ggml-cpu.h); build.sh compiles it against the build's
// libggml.
//
// Each case builds its graph once, runs it once to warm up, then runs it
// until a second has passed, and prints the mean time a run and the rate
// test-backend-ops would print: GFLOPS for a product (2 flops a
// multiply-add; for the attention path 4·n·n_kv·heads·head_dim, its two
// products), else GB/s of the op's output and inputs.
//
// Usage: ggml-op-perf [filter]   (cases whose name contains filter)

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static unsigned long long rng = 88172645463325252ULL;

static float frand(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float) ((rng >> 40) % 20001) / 10000.0f - 1.0f;
}

// fill sets every element of t to a value in [-1, 1] (a mask: 0 up to
// and including the causal diagonal, -inf after it, as llama.cpp's).
static void fill(struct ggml_tensor * t, int causal_kv0) {
    const int64_t n = ggml_nelements(t);
    float * buf = malloc(n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        buf[i] = frand();
    }
    if (causal_kv0 >= 0) {
        const int64_t nkv = t->ne[0];
        for (int64_t r = 0; r < t->ne[1]; r++) {
            for (int64_t c = 0; c < nkv; c++) {
                buf[r * nkv + c] = c <= causal_kv0 + r ? 0.0f : -INFINITY;
            }
        }
    }
    if (t->type == GGML_TYPE_F32) {
        ggml_backend_tensor_set(t, buf, 0, n * sizeof(float));
    } else if (t->type == GGML_TYPE_F16) {
        ggml_fp16_t * h = malloc(n * sizeof(ggml_fp16_t));
        ggml_fp32_to_fp16_row(buf, h, n);
        ggml_backend_tensor_set(t, h, 0, n * sizeof(ggml_fp16_t));
        free(h);
    } else if (t->type == GGML_TYPE_I32) {
        // "ids N": expert ids for MUL_MAT_ID, token j's k-th choice
        // (k·n_tokens + j) mod N, so every expert gets the same share of
        // the tokens; else positions from 1000.
        const int experts = strncmp(ggml_get_name(t), "ids ", 4) ? 0 : atoi(ggml_get_name(t) + 4);
        int32_t * p = malloc(n * sizeof(int32_t));
        for (int64_t i = 0; i < n; i++) {
            p[i] = experts > 0 ? (int32_t) ((i % t->ne[0]) * t->ne[1] + i / t->ne[0]) % experts : (int32_t) (1000 + i);
        }
        ggml_backend_tensor_set(t, p, 0, n * sizeof(int32_t));
        free(p);
    }
    free(buf);
}

struct perf_case {
    char name[160];
    struct ggml_context * ctx;
    struct ggml_tensor * out;
    double flops; // 0: report GB/s
    double bytes;
};

static struct ggml_context * new_ctx(void) {
    struct ggml_init_params p = { ggml_tensor_overhead() * 64 + ggml_graph_overhead(), NULL, true };
    return ggml_init(p);
}

static void run_case(ggml_backend_t be, struct perf_case * c, const char * filter) {
    if (filter && !strstr(c->name, filter)) {
        ggml_free(c->ctx);
        return;
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(c->ctx, be);
    for (struct ggml_tensor * t = ggml_get_first_tensor(c->ctx); t; t = ggml_get_next_tensor(c->ctx, t)) {
        if (t->op == GGML_OP_NONE && t->view_src == NULL) {
            fill(t, strstr(ggml_get_name(t), "mask") ? atoi(ggml_get_name(t) + 5) : -1);
        }
    }
    struct ggml_cgraph * gf = ggml_new_graph(c->ctx);
    ggml_build_forward_expand(gf, c->out);
    ggml_backend_graph_compute(be, gf); // warm up
    int runs = 0;
    const double t0 = now_s();
    double t1 = t0;
    do {
        ggml_backend_graph_compute(be, gf);
        runs++;
        t1 = now_s();
    } while (t1 - t0 < 1.0);
    const double us = (t1 - t0) / runs * 1e6;
    if (c->flops > 0) {
        printf("%-64s %8d runs %12.2f us/run %9.2f GFLOPS\n", c->name, runs, us, c->flops / us * 1e-3);
    } else {
        printf("%-64s %8d runs %12.2f us/run %9.2f GB/s\n", c->name, runs, us, c->bytes / us * 1e-3);
    }
    fflush(stdout);
    ggml_backend_buffer_free(buf);
    ggml_free(c->ctx);
}

// attention builds llama.cpp's attention of n tokens against n_kv cached
// positions (the first n_kv - n already there, GQA heads/kv_heads), as
// llm_build_kqv does: without flash attention, KQ = K·Q over the f16
// cache, soft_max_ext with the f32 causal mask and scale 1/sqrt(d), then
// V (the cache stored transposed)·KQ; with it, flash_attn_ext over the f16
// cache and an f16 mask.
static struct perf_case attention(int n, int n_kv, int heads, int kv_heads, int d, int fa) {
    struct perf_case c = { 0 };
    c.ctx = new_ctx();
    struct ggml_context * ctx = c.ctx;
    const int pad = (n + GGML_KQ_MASK_PAD - 1) / GGML_KQ_MASK_PAD * GGML_KQ_MASK_PAD;
    struct ggml_tensor * q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, d, heads, n);
    struct ggml_tensor * qp = ggml_permute(ctx, q, 0, 2, 1, 3);
    struct ggml_tensor * k = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, d, n_kv, kv_heads);
    struct ggml_tensor * mask = ggml_new_tensor_2d(ctx, fa ? GGML_TYPE_F16 : GGML_TYPE_F32, n_kv, pad);
    char mname[32];
    snprintf(mname, sizeof mname, "mask %d", n_kv - n);
    ggml_set_name(mask, mname);
    const float scale = 1.0f / sqrtf((float) d);
    if (fa) {
        struct ggml_tensor * v = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, d, n_kv, kv_heads);
        c.out = ggml_flash_attn_ext(ctx, qp, k, v, mask, scale, 0.0f, 0.0f);
        ggml_flash_attn_ext_set_prec(c.out, GGML_PREC_F32);
    } else {
        struct ggml_tensor * v = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, n_kv, d, kv_heads);
        struct ggml_tensor * kq = ggml_mul_mat(ctx, k, qp);
        kq = ggml_soft_max_ext(ctx, kq, mask, scale, 0.0f);
        struct ggml_tensor * kqv = ggml_mul_mat(ctx, v, kq);
        c.out = ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), d * heads, n);
    }
    c.flops = 4.0 * n * n_kv * heads * d;
    snprintf(c.name, sizeof c.name, "ATTN(fa=%d,n=%d,n_kv=%d,heads=%d,kv_heads=%d,d=%d)", fa, n, n_kv, heads, kv_heads, d);
    return c;
}

static struct perf_case mul_mat(enum ggml_type ta, int m, int n, int k) {
    struct perf_case c = { 0 };
    c.ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_2d(c.ctx, ta, k, m);
    struct ggml_tensor * b = ggml_new_tensor_2d(c.ctx, GGML_TYPE_F32, k, n);
    c.out = ggml_mul_mat(c.ctx, a, b);
    c.flops = 2.0 * m * n * k;
    snprintf(c.name, sizeof c.name, "MUL_MAT(type_a=%s,m=%d,n=%d,k=%d)", ggml_type_name(ta), m, n, k);
    return c;
}

// mul_mat_id is a MoE layer's expert product as llama.cpp builds it
// (build_moe_ffn): n tokens, each routed to top_k of experts experts of
// m x k weights; the ids spread the tokens evenly, n·top_k/experts an
// expert.
static struct perf_case mul_mat_id(enum ggml_type ta, int m, int k, int experts, int top_k, int n) {
    struct perf_case c = { 0 };
    c.ctx = new_ctx();
    struct ggml_tensor * as = ggml_new_tensor_3d(c.ctx, ta, k, m, experts);
    struct ggml_tensor * b = ggml_new_tensor_3d(c.ctx, GGML_TYPE_F32, k, 1, n);
    struct ggml_tensor * ids = ggml_new_tensor_2d(c.ctx, GGML_TYPE_I32, top_k, n);
    char iname[32];
    snprintf(iname, sizeof iname, "ids %d", experts);
    ggml_set_name(ids, iname);
    c.out = ggml_mul_mat_id(c.ctx, as, b, ids);
    c.flops = 2.0 * m * k * (double) n * top_k;
    snprintf(c.name, sizeof c.name, "MUL_MAT_ID(type_a=%s,m=%d,k=%d,experts=%d,top_k=%d,n=%d)", ggml_type_name(ta), m, k,
             experts, top_k, n);
    return c;
}

static struct perf_case unary(const char * op, int ne0, int ne1, int ne2) {
    struct perf_case c = { 0 };
    c.ctx = new_ctx();
    struct ggml_tensor * x = ggml_new_tensor_3d(c.ctx, GGML_TYPE_F32, ne0, ne1, ne2);
    const double n = (double) ne0 * ne1 * ne2;
    c.bytes = 8 * n;
    if (!strcmp(op, "RMS_NORM")) {
        c.out = ggml_rms_norm(c.ctx, x, 1e-6f);
    } else if (!strcmp(op, "SOFT_MAX")) {
        c.out = ggml_soft_max(c.ctx, x);
    } else if (!strcmp(op, "SILU")) {
        c.out = ggml_silu(c.ctx, x);
    } else if (!strcmp(op, "ADD")) {
        c.out = ggml_add(c.ctx, x, ggml_new_tensor_3d(c.ctx, GGML_TYPE_F32, ne0, ne1, ne2));
        c.bytes = 12 * n;
    } else if (!strcmp(op, "CPY_F16")) {
        c.out = ggml_cpy(c.ctx, x, ggml_new_tensor_3d(c.ctx, GGML_TYPE_F16, ne0, ne1, ne2));
        c.bytes = 6 * n;
    } else if (!strcmp(op, "ROPE")) {
        // ne0 = head_dim, ne1 = heads, ne2 = tokens; normal (not NeoX) mode.
        struct ggml_tensor * pos = ggml_new_tensor_1d(c.ctx, GGML_TYPE_I32, ne2);
        c.out = ggml_rope_ext(c.ctx, x, pos, NULL, ne0, 0, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    }
    snprintf(c.name, sizeof c.name, "%s(ne=[%d,%d,%d])", op, ne0, ne1, ne2);
    return c;
}

int main(int argc, char ** argv) {
    const char * filter = argc > 1 ? argv[1] : NULL;
    ggml_backend_t be = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(be, 1);

    static const int mm_n[] = { 1, 2, 3, 4, 5, 8, 512 };
    for (int i = 0; i < 7; i++) {
        struct perf_case c = mul_mat(GGML_TYPE_F16, 4096, mm_n[i], 14336);
        run_case(be, &c, filter);
    }
    for (int i = 0; i < 7; i++) {
        struct perf_case c = mul_mat(GGML_TYPE_F32, 4096, mm_n[i], 14336);
        run_case(be, &c, filter);
    }
    static const int sm[][3] = { { 4096, 4096, 5 }, { 77, 4096, 5 }, { 1024, 1024, 10 }, { 77, 1024, 10 },
                                 { 256, 256, 20 }, { 64, 64, 20 }, { 77, 64, 20 } };
    for (int i = 0; i < 7; i++) {
        struct perf_case c = unary("SOFT_MAX", sm[i][0], sm[i][1], sm[i][2]);
        run_case(be, &c, filter);
    }
    static const int rn[][2] = { { 4096, 512 }, { 1024, 512 }, { 4096, 1 } };
    for (int i = 0; i < 3; i++) {
        struct perf_case c = unary("RMS_NORM", rn[i][0], rn[i][1], 1);
        run_case(be, &c, filter);
    }
    static const char * ew[] = { "SILU", "ADD", "CPY_F16" };
    for (int i = 0; i < 3; i++) {
        struct perf_case c = unary(ew[i], 4096, 512, 1);
        run_case(be, &c, filter);
    }
    {
        struct perf_case c = unary("ROPE", 64, 16, 512);
        run_case(be, &c, filter);
    }
    // Attention: the random MoE of make_moe_gguf.py (16 heads, 4 KV heads
    // of 64): a prompt ubatch of 64 and 512 at an empty cache and after
    // 1536 positions, and a generated token at 512 and 2048.
    static const int at[][2] = { { 64, 64 }, { 512, 512 }, { 512, 2048 }, { 1, 512 }, { 1, 2048 } };
    for (int fa = 0; fa <= 1; fa++) {
        for (int i = 0; i < 5; i++) {
            struct perf_case c = attention(at[i][0], at[i][1], 16, 4, 64, fa);
            run_case(be, &c, filter);
        }
    }
    // The random MoE's expert products (8 experts top-2, hidden 1024,
    // FFN 1536, Q8_0): gate/up (m=1536, k=1024) and down (m=1024,
    // k=1536) at ubatches of 16 to 512 tokens (4 to 128 tokens an
    // expert), one generated token (n=1: two experts of one token), and
    // the dense Q8_0 product of the same size for reference.
    static const int moe_n[] = { 1, 16, 32, 64, 128, 256, 512 };
    for (int i = 0; i < 7; i++) {
        struct perf_case c = mul_mat_id(GGML_TYPE_Q8_0, 1536, 1024, 8, 2, moe_n[i]);
        run_case(be, &c, filter);
    }
    for (int i = 0; i < 7; i++) {
        struct perf_case c = mul_mat_id(GGML_TYPE_Q8_0, 1024, 1536, 8, 2, moe_n[i]);
        run_case(be, &c, filter);
    }
    for (int i = 0; i < 7; i++) {
        struct perf_case c = mul_mat(GGML_TYPE_Q8_0, 1536, moe_n[i], 1024);
        run_case(be, &c, filter);
    }
    ggml_backend_free(be);
    return 0;
}
