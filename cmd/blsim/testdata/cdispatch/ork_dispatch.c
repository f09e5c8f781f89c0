// ork_dispatch: an independent big/little MUL_MAT_ID dispatcher in C.
//
// A llama-bench-like prefill (pp) benchmark of a small synthetic MoE
// transformer (see workload.yaml beside this file for its shape), written
// from scratch as a foreign ground truth for blsim: its own kernels, thread
// pools, chunking and poll loop. Only the routed-expert ops (gate, up, down)
// are ever divided between the two pools; everything else runs on the big
// pool. Output: llama-bench records (jsonl by default) on stdout, a checksum
// of the final hidden state on stderr.
//
// Build: cc -O3 -march=native -pthread -o ork_dispatch ork_dispatch.c -lm
// Knobs: see README.md (ORK_MOE_BIGLITTLE, ORK_BL_SPLIT, ORK_BL_LITTLE_FRAC,
// ORK_BL_POLL, ORK_BL_BIG_CPUS, ORK_BL_LITTLE_CPUS, ORK_BL_BIG_THREADS,
// ORK_BL_LITTLE_THREADS, ORK_BL_SPIN_ROUNDS).
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif

// The AVX2 kernels, unless -DORK_PORTABLE asks for the portable C ones
// (plain loops: about 6 G int-ops/s a core on x86, several times slower
// than the AVX2 kernels; there are no NEON kernels).
#if defined(__AVX2__) && defined(__FMA__) && !defined(ORK_PORTABLE)
#define ORK_SIMD 1
#else
#define ORK_SIMD 0
#endif

// ---------------------------------------------------------------------------
// Model shape (workload.yaml must say the same).

enum {
	LAYERS = 4,
	DM = 1024,     // hidden width
	VOCAB = 8192,  // output head rows, last token only
	NHEAD = 4,     // query heads
	NKV = 1,       // K/V heads
	HDIM = 64,     // head width
	NEXP = 64,     // routed experts per layer
	TOPK = 4,      // experts per token
	FFN = 512,     // expert width
	QKVW = (NHEAD + 2 * NKV) * HDIM,  // fused q,k,v projection width: 384
	ATTW = NHEAD * HDIM,              // attention output width: 256
	EMB_ROWS = 512,                   // distinct synthetic token embeddings
	MAX_TOKENS = 65536,               // -p and -ub limit
};

#define QK 32  // weights per quantised block

typedef struct { uint16_t d; uint8_t qs[QK / 2]; } bq4;  // Q4_0: (nibble-8)*d
typedef struct { uint16_t d; int8_t qs[QK]; } bq8;       // Q8_0: q*d
_Static_assert(sizeof(bq4) == 18, "bq4 must be 18 bytes");
_Static_assert(sizeof(bq8) == 34, "bq8 must be 34 bytes");

// ---------------------------------------------------------------------------
// Errors.

static const char *prog = "ork_dispatch";

static void die(int code, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

static void *xalloc(size_t n) {
	void *p = NULL;
	if (n == 0) n = 64;
	if (posix_memalign(&p, 64, (n + 63) / 64 * 64) != 0) die(1, "out of memory (%zu bytes)", n);
	memset(p, 0, n);
	return p;
}

// ---------------------------------------------------------------------------
// fp16 <-> fp32 (own conversions; decode through a table).

static float f16tab[65536];

static float f16_decode(uint16_t h) {
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, f;
	if (exp == 0) {
		if (mant == 0) {
			f = sign;
		} else {
			int e = -1;
			do {
				e++;
				mant <<= 1;
			} while (!(mant & 0x400));
			mant &= 0x3ff;
			f = sign | ((uint32_t)(127 - 15 - e) << 23) | (mant << 13);
		}
	} else if (exp == 31) {
		f = sign | 0x7f800000u | (mant << 13);
	} else {
		f = sign | ((exp + 112) << 23) | (mant << 13);
	}
	float out;
	memcpy(&out, &f, 4);
	return out;
}

static uint16_t f16_encode(float v) {
	uint32_t x;
	memcpy(&x, &v, 4);
	uint32_t sign = (x >> 16) & 0x8000;
	int32_t e8 = (int32_t)((x >> 23) & 0xff);
	uint32_t mant = x & 0x7fffff;
	if (e8 == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
	int32_t exp = e8 - 127 + 15;
	if (exp >= 31) return (uint16_t)(sign | 0x7c00);
	if (exp <= 0) {
		if (exp < -10) return (uint16_t)sign;
		mant |= 0x800000;
		int shift = 14 - exp;
		uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1))) half++;
		return (uint16_t)(sign | half);
	}
	uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
	return (uint16_t)h;
}

#define F16(h) f16tab[(h)]

// ---------------------------------------------------------------------------
// Random numbers: splitmix64 for the weights, a hash for routing and tokens.

static uint64_t mix64(uint64_t z) {
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

typedef struct { uint64_t s; } rng;

static uint64_t rng_next(rng *r) {
	r->s += 0x9e3779b97f4a7c15ull;
	uint64_t z = r->s;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static float rng_unit(rng *r) { return (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f); }

// ---------------------------------------------------------------------------
// Kernels. Each is noinline so that every thread of every pool runs the very
// same code: a split changes who computes an element, never its value.

#if ORK_SIMD
static inline float hsum256(__m256 x) {
	__m128 r = _mm_add_ps(_mm256_extractf128_ps(x, 1), _mm256_castps256_ps128(x));
	r = _mm_add_ps(r, _mm_movehl_ps(r, r));
	r = _mm_add_ss(r, _mm_movehdup_ps(r));
	return _mm_cvtss_f32(r);
}

// Sum of the 32 products of signed bytes x*y, as 8 floats.
static inline __m256 dot_i8_32(__m256i x, __m256i y) {
	const __m256i ax = _mm256_sign_epi8(x, x);
	const __m256i sy = _mm256_sign_epi8(y, x);
#if defined(__AVXVNNI__)
	const __m256i s = _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), ax, sy);
#elif defined(__AVX512VNNI__) && defined(__AVX512VL__)
	const __m256i s = _mm256_dpbusd_epi32(_mm256_setzero_si256(), ax, sy);
#else
	const __m256i s = _mm256_madd_epi16(_mm256_maddubs_epi16(ax, sy), _mm256_set1_epi16(1));
#endif
	return _mm256_cvtepi32_ps(s);
}
#endif

// Q4_0 row . Q8_0 row, nb blocks.
__attribute__((noinline)) static float dot_q4_q8(const bq4 *restrict x, const bq8 *restrict y, int nb) {
#if ORK_SIMD
	__m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
	const __m256i m4 = _mm256_set1_epi8(0x0f), off = _mm256_set1_epi8(8);
	int b = 0;
	for (; b + 1 < nb; b += 2) {
		__m128i t0 = _mm_loadu_si128((const __m128i *)x[b].qs);
		__m128i t1 = _mm_loadu_si128((const __m128i *)x[b + 1].qs);
		__m256i q0 = _mm256_sub_epi8(_mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(t0, 4), t0), m4), off);
		__m256i q1 = _mm256_sub_epi8(_mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(t1, 4), t1), m4), off);
		__m256i y0 = _mm256_loadu_si256((const __m256i *)y[b].qs);
		__m256i y1 = _mm256_loadu_si256((const __m256i *)y[b + 1].qs);
		acc0 = _mm256_fmadd_ps(_mm256_set1_ps(F16(x[b].d) * F16(y[b].d)), dot_i8_32(q0, y0), acc0);
		acc1 = _mm256_fmadd_ps(_mm256_set1_ps(F16(x[b + 1].d) * F16(y[b + 1].d)), dot_i8_32(q1, y1), acc1);
	}
	for (; b < nb; b++) {
		__m128i t0 = _mm_loadu_si128((const __m128i *)x[b].qs);
		__m256i q0 = _mm256_sub_epi8(_mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(t0, 4), t0), m4), off);
		__m256i y0 = _mm256_loadu_si256((const __m256i *)y[b].qs);
		acc0 = _mm256_fmadd_ps(_mm256_set1_ps(F16(x[b].d) * F16(y[b].d)), dot_i8_32(q0, y0), acc0);
	}
	return hsum256(_mm256_add_ps(acc0, acc1));
#else
	float sum = 0.0f;
	for (int b = 0; b < nb; b++) {
		int s = 0;
		for (int j = 0; j < QK / 2; j++) {
			int lo = (x[b].qs[j] & 0x0f) - 8, hi = (x[b].qs[j] >> 4) - 8;
			s += lo * y[b].qs[j] + hi * y[b].qs[j + QK / 2];
		}
		sum += F16(x[b].d) * F16(y[b].d) * (float)s;
	}
	return sum;
#endif
}

// Q8_0 row . Q8_0 row, nb blocks.
__attribute__((noinline)) static float dot_q8_q8(const bq8 *restrict x, const bq8 *restrict y, int nb) {
#if ORK_SIMD
	__m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
	int b = 0;
	for (; b + 1 < nb; b += 2) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)x[b].qs);
		__m256i x1 = _mm256_loadu_si256((const __m256i *)x[b + 1].qs);
		__m256i y0 = _mm256_loadu_si256((const __m256i *)y[b].qs);
		__m256i y1 = _mm256_loadu_si256((const __m256i *)y[b + 1].qs);
		acc0 = _mm256_fmadd_ps(_mm256_set1_ps(F16(x[b].d) * F16(y[b].d)), dot_i8_32(x0, y0), acc0);
		acc1 = _mm256_fmadd_ps(_mm256_set1_ps(F16(x[b + 1].d) * F16(y[b + 1].d)), dot_i8_32(x1, y1), acc1);
	}
	for (; b < nb; b++) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)x[b].qs);
		__m256i y0 = _mm256_loadu_si256((const __m256i *)y[b].qs);
		acc0 = _mm256_fmadd_ps(_mm256_set1_ps(F16(x[b].d) * F16(y[b].d)), dot_i8_32(x0, y0), acc0);
	}
	return hsum256(_mm256_add_ps(acc0, acc1));
#else
	float sum = 0.0f;
	for (int b = 0; b < nb; b++) {
		int s = 0;
		for (int j = 0; j < QK; j++) s += x[b].qs[j] * y[b].qs[j];
		sum += F16(x[b].d) * F16(y[b].d) * (float)s;
	}
	return sum;
#endif
}

// float dot product with 16 independent lanes (vectorisable without -ffast-math).
__attribute__((noinline)) static float dot_f32(const float *restrict a, const float *restrict b, int n) {
	float acc[16] = {0};
	int i = 0;
	for (; i + 16 <= n; i += 16)
		for (int j = 0; j < 16; j++) acc[j] += a[i + j] * b[i + j];
	float s = 0.0f;
	for (; i < n; i++) s += a[i] * b[i];
	for (int j = 0; j < 16; j++) s += acc[j];
	return s;
}

// Quantises n floats (a multiple of QK) to Q8_0.
__attribute__((noinline)) static void quant_row_q8(const float *restrict x, bq8 *restrict y, int n) {
	for (int b = 0; b < n / QK; b++) {
		const float *v = x + b * QK;
		float amax = 0.0f;
		for (int j = 0; j < QK; j++) amax = fmaxf(amax, fabsf(v[j]));
		float d = amax / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
		y[b].d = f16_encode(d);
		for (int j = 0; j < QK; j++) y[b].qs[j] = (int8_t)lrintf(v[j] * id);
	}
}

// RMS norm of one row.
__attribute__((noinline)) static void rms_norm_row(const float *restrict x, float *restrict y, int n) {
	float ss = dot_f32(x, x, n);
	float scale = 1.0f / sqrtf(ss / (float)n + 1e-6f);
	for (int i = 0; i < n; i++) y[i] = x[i] * scale;
}

// ---------------------------------------------------------------------------
// Weights.

typedef struct {
	bq8 *qkv;     // QKVW rows x DM
	bq8 *out;     // DM rows x ATTW
	bq8 *router;  // NEXP rows x DM
	bq4 *gate;    // NEXP x FFN rows x DM
	bq4 *up;      // NEXP x FFN rows x DM
	bq4 *down;    // NEXP x DM rows x FFN
	float *kc, *vc;  // K and V cache: positions x NKV*HDIM
} layer_w;

static layer_w LW[LAYERS];
static bq8 *W_OUT;   // VOCAB rows x DM
static float *EMB;   // EMB_ROWS x DM

// Scale so that a row dot with a unit-variance input has about gain std.
static void fill_q4(bq4 *w, size_t rows, int in, float gain, rng *r) {
	size_t nb = rows * (size_t)(in / QK);
	float base = gain / (4.61f * sqrtf((float)in));
	for (size_t i = 0; i < nb; i++) {
		w[i].d = f16_encode(base * (0.75f + 0.5f * rng_unit(r)));
		uint64_t a = rng_next(r), b = rng_next(r);
		memcpy(w[i].qs, &a, 8);
		memcpy(w[i].qs + 8, &b, 8);
	}
}

static void fill_q8(bq8 *w, size_t rows, int in, float gain, rng *r) {
	size_t nb = rows * (size_t)(in / QK);
	float base = gain / (73.3f * sqrtf((float)in));
	for (size_t i = 0; i < nb; i++) {
		w[i].d = f16_encode(base * (0.75f + 0.5f * rng_unit(r)));
		for (int j = 0; j < QK; j += 8) {
			uint64_t a = rng_next(r);
			for (int k = 0; k < 8; k++) {
				int v = (int)((a >> (8 * k)) & 0xff) - 128;
				w[i].qs[j + k] = (int8_t)(v == -128 ? -127 : v);
			}
		}
	}
}

static size_t q4_bytes(size_t rows, int in) { return rows * (size_t)(in / QK) * sizeof(bq4); }
static size_t q8_bytes(size_t rows, int in) { return rows * (size_t)(in / QK) * sizeof(bq8); }

static int64_t model_bytes(void) {
	size_t per = q8_bytes(QKVW, DM) + q8_bytes(DM, ATTW) + q8_bytes(NEXP, DM) +
	             2 * q4_bytes((size_t)NEXP * FFN, DM) + q4_bytes((size_t)NEXP * DM, FFN);
	return (int64_t)(LAYERS * per + q8_bytes(VOCAB, DM));
}

static int64_t model_params(void) {
	int64_t per = (int64_t)QKVW * DM + (int64_t)DM * ATTW + (int64_t)NEXP * DM + 3 * (int64_t)NEXP * FFN * DM;
	return LAYERS * per + (int64_t)VOCAB * DM;
}

static void init_weights(uint64_t seed, int maxpos) {
	rng r = {mix64(seed ^ 0x6f726b5f626cull)};
	for (int l = 0; l < LAYERS; l++) {
		layer_w *w = &LW[l];
		w->qkv = xalloc(q8_bytes(QKVW, DM));
		w->out = xalloc(q8_bytes(DM, ATTW));
		w->router = xalloc(q8_bytes(NEXP, DM));
		w->gate = xalloc(q4_bytes((size_t)NEXP * FFN, DM));
		w->up = xalloc(q4_bytes((size_t)NEXP * FFN, DM));
		w->down = xalloc(q4_bytes((size_t)NEXP * DM, FFN));
		w->kc = xalloc((size_t)maxpos * NKV * HDIM * sizeof(float));
		w->vc = xalloc((size_t)maxpos * NKV * HDIM * sizeof(float));
		fill_q8(w->qkv, QKVW, DM, 1.0f, &r);
		fill_q8(w->out, DM, ATTW, 0.5f, &r);
		fill_q8(w->router, NEXP, DM, 1.0f, &r);
		fill_q4(w->gate, (size_t)NEXP * FFN, DM, 1.0f, &r);
		fill_q4(w->up, (size_t)NEXP * FFN, DM, 1.0f, &r);
		fill_q4(w->down, (size_t)NEXP * DM, FFN, 0.5f, &r);
	}
	W_OUT = xalloc(q8_bytes(VOCAB, DM));
	fill_q8(W_OUT, VOCAB, DM, 1.0f, &r);
	EMB = xalloc((size_t)EMB_ROWS * DM * sizeof(float));
	for (size_t i = 0; i < (size_t)EMB_ROWS * DM; i++) EMB[i] = 2.0f * rng_unit(&r) - 1.0f;
}

// ---------------------------------------------------------------------------
// Activations (sized for the largest ubatch and prompt of the run).

static struct {
	int ub, maxpos;
	float *x, *xn, *qkv, *att, *rlog;  // ub x DM, ub x DM, ub x QKVW, ub x ATTW, ub x NEXP
	float *gate, *up, *down;           // ub*TOPK x FFN, FFN, DM
	bq8 *qtok, *qatt, *qpair;          // ub x DM/QK, ub x ATTW/QK, ub*TOPK x FFN/QK
	bq8 *lq;                           // little pool's gathered inputs: ub*TOPK x DM/QK
	float *lout;                       // little pool's gathered outputs: ub*TOPK x DM
	int *sel;                          // LAYERS x ub x TOPK routed experts
	float *xout;                       // DM: last token, normed
	bq8 *qout;                         // DM/QK
	float *logits;                     // VOCAB
} A;

static void alloc_acts(int ub, int maxpos) {
	size_t p = (size_t)ub * TOPK;
	A.ub = ub;
	A.maxpos = maxpos;
	A.x = xalloc((size_t)ub * DM * 4);
	A.xn = xalloc((size_t)ub * DM * 4);
	A.qkv = xalloc((size_t)ub * QKVW * 4);
	A.att = xalloc((size_t)ub * ATTW * 4);
	A.rlog = xalloc((size_t)ub * NEXP * 4);
	A.gate = xalloc(p * FFN * 4);
	A.up = xalloc(p * FFN * 4);
	A.down = xalloc(p * DM * 4);
	A.qtok = xalloc((size_t)ub * (DM / QK) * sizeof(bq8));
	A.qatt = xalloc((size_t)ub * (ATTW / QK) * sizeof(bq8));
	A.qpair = xalloc(p * (FFN / QK) * sizeof(bq8));
	A.lq = xalloc(p * (DM / QK) * sizeof(bq8));
	A.lout = xalloc(p * DM * 4);
	A.sel = xalloc((size_t)LAYERS * p * sizeof(int));
	A.xout = xalloc(DM * 4);
	A.qout = xalloc((DM / QK) * sizeof(bq8));
	A.logits = xalloc(VOCAB * 4);
}

// ---------------------------------------------------------------------------
// Expert partitions: which (token, expert) pairs a pool computes.

typedef struct {
	int nact;             // experts with at least one pair here
	int act[NEXP];        // their ids, ascending
	int off[NEXP + 1];    // entries of act[a]: off[a] .. off[a+1]
	int n;                // entries
	int *pair;            // pair index t*TOPK+j of each entry
	int *tok;             // token of each entry
	int *gi;              // 0..n-1 (gathered rows)
} part;

static part PARTS[LAYERS][2];

static void alloc_parts(int ub) {
	size_t p = (size_t)ub * TOPK;
	for (int l = 0; l < LAYERS; l++)
		for (int s = 0; s < 2; s++) {
			PARTS[l][s].pair = xalloc(p * sizeof(int));
			PARTS[l][s].tok = xalloc(p * sizeof(int));
			PARTS[l][s].gi = xalloc(p * sizeof(int));
			for (size_t i = 0; i < p; i++) PARTS[l][s].gi[i] = (int)i;
		}
}

// Fills pt with the pairs of tokens [t0,t1) routed to experts [e0,e1).
static void build_part(part *pt, const int *sel, int t0, int t1, int e0, int e1) {
	int cnt[NEXP] = {0}, start[NEXP];
	for (int t = t0; t < t1; t++)
		for (int j = 0; j < TOPK; j++) {
			int e = sel[t * TOPK + j];
			if (e >= e0 && e < e1) cnt[e]++;
		}
	pt->nact = 0;
	pt->n = 0;
	for (int e = 0; e < NEXP; e++) {
		start[e] = pt->n;
		if (cnt[e] > 0) {
			pt->off[pt->nact] = pt->n;
			pt->act[pt->nact++] = e;
			pt->n += cnt[e];
		}
	}
	pt->off[pt->nact] = pt->n;
	for (int t = t0; t < t1; t++)
		for (int j = 0; j < TOPK; j++) {
			int e = sel[t * TOPK + j];
			if (e >= e0 && e < e1) {
				int k = start[e]++;
				pt->pair[k] = t * TOPK + j;
				pt->tok[k] = t;
			}
		}
}

// Seeded uniform top-k: TOPK distinct experts from a hash of (layer, position).
static uint64_t SEED = 1;

static void route(int layer, int pos, int *out) {
	uint64_t h = mix64(SEED * 0x100000001b3ull ^ ((uint64_t)layer << 48) ^ (uint64_t)pos);
	for (int j = 0; j < TOPK; j++) {
		for (;;) {
			h = mix64(h);
			int e = (int)(h % NEXP), dup = 0;
			for (int i = 0; i < j; i++) dup |= out[i] == e;
			if (!dup) {
				out[j] = e;
				break;
			}
		}
	}
}

static int token_id(int pos) { return (int)(mix64(SEED ^ 0x746f6bull ^ ((uint64_t)pos << 20)) % EMB_ROWS); }

// ---------------------------------------------------------------------------
// Steps: one parallel phase of an op, cut into tasks that threads claim with
// an atomic counter. A job is a list of steps with a barrier between them.

enum {
	S_EMBED,     // x[t] = EMB[token(pos)]
	S_NORM,      // xn[t] = rmsnorm(x[t])
	S_QUANT,     // q8 rows from float rows (or from swiglu(gate, up))
	S_MATMUL,    // dense Q8_0 rows x q8 tokens
	S_KVSTORE,   // K, V of the ubatch into the cache
	S_ATTN,      // causal softmax attention, one (token, head) per task
	S_EXPERT,    // MUL_MAT_ID over a partition: (expert, row chunk) per task
	S_SCATTER,   // gathered outputs back to pair rows
	S_COMBINE,   // x[t] += sum_j w_j down[t,j]
	S_OUTNORM,   // last token: norm and quantise for the output head
};

typedef struct {
	int kind;
	int ntasks;
	_Atomic int next;
	int layer, start, n;     // layer, KV position of token 0, token or row count
	// S_QUANT: n rows; row k: source idx[k] (or k0+k), destination didx[k] (or the source).
	int swiglu, width, k0;
	const float *src;
	const int *idx, *didx;
	bq8 *q;
	// S_MATMUL: rows of w times n q8 tokens into dst (accumulate when acc).
	const bq8 *w8;
	int in, out, rch, acc;
	float *dst;
	// S_EXPERT and S_SCATTER: the partition and the row maps of the op.
	const part *pt;
	const bq4 *w4;
	const int *in_row, *out_row;
	const bq8 *qin;
} step;

typedef struct {
	int ith;
	float *scores;  // attention scratch, maxpos floats
} wctx;

static void run_task(step *s, int i, wctx *w) {
	switch (s->kind) {
	case S_EMBED:
		memcpy(A.x + (size_t)i * DM, EMB + (size_t)token_id(s->start + i) * DM, DM * sizeof(float));
		break;
	case S_NORM:
		rms_norm_row(A.x + (size_t)i * DM, A.xn + (size_t)i * DM, DM);
		break;
	case S_QUANT: {
		int r = s->idx ? s->idx[i] : s->k0 + i;
		int d = s->didx ? s->didx[i] : r;
		bq8 *q = s->q + (size_t)d * (s->width / QK);
		if (s->swiglu) {
			float h[FFN];
			const float *g = A.gate + (size_t)r * FFN, *u = A.up + (size_t)r * FFN;
			for (int j = 0; j < FFN; j++) h[j] = g[j] / (1.0f + expf(-g[j])) * u[j];
			quant_row_q8(h, q, FFN);
		} else {
			quant_row_q8(s->src + (size_t)r * s->width, q, s->width);
		}
		break;
	}
	case S_MATMUL: {
		int nb = s->in / QK, r0 = i * s->rch, r1 = r0 + s->rch;
		if (r1 > s->out) r1 = s->out;
		for (int r = r0; r < r1; r++) {
			const bq8 *wr = s->w8 + (size_t)r * nb;
			for (int t = 0; t < s->n; t++) {
				float v = dot_q8_q8(wr, s->qin + (size_t)t * nb, nb);
				float *o = s->dst + (size_t)t * s->out + r;
				*o = s->acc ? *o + v : v;
			}
		}
		break;
	}
	case S_KVSTORE: {
		const layer_w *lw = &LW[s->layer];
		const float *src = A.qkv + (size_t)i * QKVW + NHEAD * HDIM;
		memcpy(lw->kc + (size_t)(s->start + i) * NKV * HDIM, src, NKV * HDIM * sizeof(float));
		memcpy(lw->vc + (size_t)(s->start + i) * NKV * HDIM, src + NKV * HDIM, NKV * HDIM * sizeof(float));
		break;
	}
	case S_ATTN: {
		const layer_w *lw = &LW[s->layer];
		int t = i / NHEAD, h = i % NHEAD, kvh = h / (NHEAD / NKV), pos = s->start + t;
		const float *q = A.qkv + (size_t)t * QKVW + h * HDIM;
		float *sc = w->scores, mx = -INFINITY, sum = 0.0f, scale = 1.0f / sqrtf((float)HDIM);
		for (int p = 0; p <= pos; p++) {
			sc[p] = dot_f32(q, lw->kc + (size_t)p * NKV * HDIM + kvh * HDIM, HDIM) * scale;
			mx = fmaxf(mx, sc[p]);
		}
		for (int p = 0; p <= pos; p++) {
			sc[p] = expf(sc[p] - mx);
			sum += sc[p];
		}
		float acc[HDIM] = {0}, inv = 1.0f / sum;
		for (int p = 0; p <= pos; p++) {
			const float *v = lw->vc + (size_t)p * NKV * HDIM + kvh * HDIM;
			float a = sc[p] * inv;
			for (int j = 0; j < HDIM; j++) acc[j] += a * v[j];
		}
		memcpy(A.att + (size_t)t * ATTW + h * HDIM, acc, sizeof acc);
		break;
	}
	case S_EXPERT: {
		const part *pt = s->pt;
		int nch = (s->out + s->rch - 1) / s->rch, a = i / nch, c = i % nch, e = pt->act[a];
		int nb = s->in / QK, r0 = c * s->rch, r1 = r0 + s->rch;
		if (r1 > s->out) r1 = s->out;
		const bq4 *we = s->w4 + (size_t)e * s->out * nb;
		for (int r = r0; r < r1; r++) {
			const bq4 *wr = we + (size_t)r * nb;
			for (int k = pt->off[a]; k < pt->off[a + 1]; k++)
				s->dst[(size_t)s->out_row[k] * s->out + r] = dot_q4_q8(wr, s->qin + (size_t)s->in_row[k] * nb, nb);
		}
		break;
	}
	case S_SCATTER:
		memcpy(s->dst + (size_t)s->pt->pair[i] * s->width, s->src + (size_t)i * s->width, s->width * sizeof(float));
		break;
	case S_COMBINE: {
		const int *sel = A.sel + ((size_t)s->layer * A.ub + i) * TOPK;
		const float *lg = A.rlog + (size_t)i * NEXP;
		float wts[TOPK], mx = -INFINITY, sum = 0.0f;
		for (int j = 0; j < TOPK; j++) mx = fmaxf(mx, lg[sel[j]]);
		for (int j = 0; j < TOPK; j++) sum += wts[j] = expf(lg[sel[j]] - mx);
		float *x = A.x + (size_t)i * DM;
		for (int j = 0; j < TOPK; j++) {
			const float *d = A.down + ((size_t)i * TOPK + j) * DM;
			float wj = wts[j] / sum;
			for (int c = 0; c < DM; c++) x[c] += wj * d[c];
		}
		break;
	}
	case S_OUTNORM:
		rms_norm_row(A.x + (size_t)(s->n - 1) * DM, A.xout, DM);
		quant_row_q8(A.xout, A.qout, DM);
		break;
	}
}

static void run_step(step *s, wctx *w) {
	for (;;) {
		int i = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
		if (i >= s->ntasks) return;
		run_task(s, i, w);
	}
}

// ---------------------------------------------------------------------------
// Pools: persistent pinned threads that wait for a job with a poll loop
// (spin ORK_BL_POLL*ORK_BL_SPIN_ROUNDS rounds, then sleep on a futex).

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
	_mm_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

// Barriers and the wait for a pool's end spin; after about a millisecond
// they also yield, so that threads sharing a CPU still make progress.
static inline void spin_pause(long i) {
	cpu_relax();
	if (i >= (1L << 17)) sched_yield();
}

static int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val) {
	return syscall(SYS_futex, (uint32_t *)addr, op, val, NULL, NULL, 0);
}

typedef struct pool {
	const char *name;
	int nth;        // threads, counting the caller when has_main
	int has_main;   // thread 0 is the calling (main) thread
	int *cpus, ncpus;
	int poll;
	long spin_rounds;
	pthread_t *tids;
	wctx *ctx;
	_Atomic uint32_t gen;    // job generation: the futex word
	_Atomic int nsleep;      // threads asleep in futex
	_Atomic int pending;     // worker threads still on the current job
	_Atomic int quit;
	step *steps;             // current job
	int nsteps;
	_Atomic int bar_count, bar_phase;
	char errbuf[256];
	_Atomic int failed;
	_Atomic int64_t end_ns;  // latest time a worker finished the current job
} pool;

static void barrier(pool *p) {
	if (p->nth == 1) return;
	int ph = atomic_load_explicit(&p->bar_phase, memory_order_relaxed);
	if (atomic_fetch_add_explicit(&p->bar_count, 1, memory_order_acq_rel) == p->nth - 1) {
		atomic_store_explicit(&p->bar_count, 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->bar_phase, 1, memory_order_release);
		return;
	}
	for (long i = 0; atomic_load_explicit(&p->bar_phase, memory_order_acquire) == ph; i++) spin_pause(i);
}

static void run_job(pool *p, wctx *w, step *steps, int n) {
	for (int k = 0; k < n; k++) {
		run_step(&steps[k], w);
		if (k + 1 < n) barrier(p);
	}
}

static uint32_t wait_job(pool *p, uint32_t seen) {
	long rounds = p->poll * p->spin_rounds;
	for (long i = 0; i < rounds; i++) {
		uint32_t g = atomic_load_explicit(&p->gen, memory_order_acquire);
		if (g != seen) return g;
		cpu_relax();
	}
	for (;;) {
		uint32_t g = atomic_load(&p->gen);
		if (g != seen) return g;
		atomic_fetch_add(&p->nsleep, 1);
		if (atomic_load(&p->gen) == seen) futex(&p->gen, FUTEX_WAIT_PRIVATE, seen);
		atomic_fetch_sub(&p->nsleep, 1);
	}
}

static int pin_self(int cpu) {
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

typedef struct { pool *p; int ith; } warg;

static _Atomic int started;

static void *worker(void *arg) {
	warg *a = arg;
	pool *p = a->p;
	wctx *w = &p->ctx[a->ith];
	int cpu = p->cpus[a->ith % p->ncpus];
	int err = pin_self(cpu);
	int no = 0;
	if (err != 0 && atomic_compare_exchange_strong(&p->failed, &no, 1))  // the first failure tells
		snprintf(p->errbuf, sizeof p->errbuf, "%s pool: cannot pin thread %d to cpu %d: %s", p->name, a->ith, cpu, strerror(err));
	atomic_fetch_add(&started, 1);
	uint32_t seen = 0;
	for (;;) {
		seen = wait_job(p, seen);
		if (atomic_load_explicit(&p->quit, memory_order_acquire)) break;
		run_job(p, w, p->steps, p->nsteps);
		int64_t t = now_ns(), e = atomic_load_explicit(&p->end_ns, memory_order_relaxed);
		while (t > e && !atomic_compare_exchange_weak_explicit(&p->end_ns, &e, t, memory_order_relaxed, memory_order_relaxed)) {
		}
		atomic_fetch_sub_explicit(&p->pending, 1, memory_order_release);
	}
	return NULL;
}

static void pool_start(pool *p, const char *name, int nth, int has_main, int *cpus, int ncpus, int poll, long spin_rounds) {
	memset(p, 0, sizeof *p);
	p->name = name;
	p->nth = nth;
	p->has_main = has_main;
	p->cpus = cpus;
	p->ncpus = ncpus;
	p->poll = poll;
	p->spin_rounds = spin_rounds;
	p->tids = xalloc((size_t)nth * sizeof(pthread_t));
	p->ctx = xalloc((size_t)nth * sizeof(wctx));
	warg *args = xalloc((size_t)nth * sizeof(warg));
	for (int i = 0; i < nth; i++) {
		p->ctx[i].ith = i;
		p->ctx[i].scores = xalloc((size_t)A.maxpos * sizeof(float));
	}
	atomic_store(&started, 0);
	int first = has_main ? 1 : 0;
	for (int i = first; i < nth; i++) {
		args[i].p = p;
		args[i].ith = i;
		int err = pthread_create(&p->tids[i], NULL, worker, &args[i]);
		if (err != 0) die(1, "%s pool: cannot create thread %d: %s", name, i, strerror(err));
	}
	while (atomic_load(&started) < nth - first) sched_yield();
	if (atomic_load(&p->failed)) die(2, "%s", p->errbuf);
	// args stay allocated: the workers keep their pointers.
}

static void pool_post(pool *p, step *steps, int n) {
	p->steps = steps;
	p->nsteps = n;
	atomic_store_explicit(&p->pending, p->nth - p->has_main, memory_order_relaxed);
	atomic_store_explicit(&p->end_ns, 0, memory_order_relaxed);
	atomic_fetch_add(&p->gen, 1);
	if (atomic_load(&p->nsleep) > 0) futex(&p->gen, FUTEX_WAKE_PRIVATE, INT_MAX);
}

static void pool_wait(pool *p) {
	for (long i = 0; atomic_load_explicit(&p->pending, memory_order_acquire) != 0; i++) spin_pause(i);
}

static void pool_stop(pool *p) {
	if (p->nth == 0) return;
	atomic_store(&p->quit, 1);
	atomic_fetch_add(&p->gen, 1);
	futex(&p->gen, FUTEX_WAKE_PRIVATE, INT_MAX);
	for (int i = p->has_main ? 1 : 0; i < p->nth; i++) pthread_join(p->tids[i], NULL);
	for (int i = 0; i < p->nth; i++) free(p->ctx[i].scores);
	free(p->tids);
	free(p->ctx);
	p->nth = 0;
}

// ---------------------------------------------------------------------------
// Plans: one ubatch's steps cut into segments. A segment is one job for the
// big pool and, for a split op, one job for the little pool at the same time.

enum { MODE_NATIVE, MODE_TOKEN, MODE_EXPERT };
static const char *mode_names[] = {"native", "token", "expert"};

typedef struct { int b0, bn, l0, ln, split; } segment;

enum { MAX_STEPS = 64 * LAYERS + 16, MAX_SEGS = 8 * LAYERS + 4 };
static step STEPS[MAX_STEPS];
static segment SEGS[MAX_SEGS];
static int nsteps, nsegs;

typedef struct {
	int mode;
	double frac;
	pool big, little;
	// Time inside the split ops, from the post to each pool's end (one run).
	int64_t split_wall_ns, split_big_ns, split_little_ns;
} dispatcher;

static step *new_step(int kind, int ntasks) {
	if (nsteps >= MAX_STEPS) die(1, "internal: too many steps");
	step *s = &STEPS[nsteps++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->ntasks = ntasks;
	atomic_store_explicit(&s->next, 0, memory_order_relaxed);
	return s;
}

static segment *cur_seg(void) { return &SEGS[nsegs - 1]; }

static void open_seg(int split) {
	if (nsegs >= MAX_SEGS) die(1, "internal: too many segments");
	segment *g = &SEGS[nsegs++];
	g->b0 = g->l0 = nsteps;
	g->bn = g->ln = 0;
	g->split = split;
}

// Steps are appended to the big side until little_side is called.
static int on_little;
static void big_side(void) { on_little = 0; }
static void little_side(void) { on_little = 1; cur_seg()->l0 = nsteps; }

static step *add(int kind, int ntasks) {
	step *s = new_step(kind, ntasks);
	if (on_little) cur_seg()->ln++;
	else cur_seg()->bn++;
	return s;
}

static void add_quant(const float *src, int width, int k0, int n, const int *idx, const int *didx, bq8 *q, int swiglu) {
	step *s = add(S_QUANT, n);
	s->src = src;
	s->width = width;
	s->k0 = k0;
	s->n = n;
	s->idx = idx;
	s->didx = didx;
	s->q = q;
	s->swiglu = swiglu;
}

static void add_matmul(const bq8 *w, int in, int out, const bq8 *qin, int n, float *dst, int acc) {
	int rch = 16;
	step *s = add(S_MATMUL, (out + rch - 1) / rch);
	s->w8 = w;
	s->in = in;
	s->out = out;
	s->rch = rch;
	s->qin = qin;
	s->n = n;
	s->dst = dst;
	s->acc = acc;
}

static void add_expert(const part *pt, const bq4 *w, int in, int out, const bq8 *qin, const int *in_row, float *dst, const int *out_row) {
	int rch = 16384 / in;  // about 16K weights per task
	if (rch < 1) rch = 1;
	if (rch > out) rch = out;
	step *s = add(S_EXPERT, pt->nact * ((out + rch - 1) / rch));
	s->pt = pt;
	s->w4 = w;
	s->in = in;
	s->out = out;
	s->rch = rch;
	s->qin = qin;
	s->in_row = in_row;
	s->dst = dst;
	s->out_row = out_row;
}

// One pool's part of one expert op (which: 0 gate, 1 up, 2 down). Gathered
// (the little pool of an expert split): inputs are gathered into A.lq,
// outputs computed into A.lout and scattered back to the pair rows.
static void add_expert_side(int layer, int which, const part *pt, int gathered, int t0, int t1) {
	const layer_w *lw = &LW[layer];
	const bq4 *w = which == 0 ? lw->gate : which == 1 ? lw->up : lw->down;
	int in = which == 2 ? FFN : DM, out = which == 2 ? DM : FFN;
	float *dst = which == 0 ? A.gate : which == 1 ? A.up : A.down;
	if (gathered) {
		if (which < 2) add_quant(A.xn, DM, 0, pt->n, pt->tok, pt->gi, A.lq, 0);
		else add_quant(NULL, FFN, 0, pt->n, pt->pair, pt->gi, A.lq, 1);
		add_expert(pt, w, in, out, A.lq, pt->gi, A.lout, pt->gi);
		step *s = add(S_SCATTER, pt->n);
		s->pt = pt;
		s->src = A.lout;
		s->dst = dst;
		s->width = out;
		return;
	}
	if (which < 2) {
		add_quant(A.xn, DM, t0, t1 - t0, NULL, NULL, A.qtok, 0);
		add_expert(pt, w, in, out, A.qtok, pt->tok, dst, pt->pair);
	} else {
		add_quant(NULL, FFN, 0, pt->n, pt->pair, NULL, A.qpair, 1);
		add_expert(pt, w, in, out, A.qpair, pt->pair, dst, pt->pair);
	}
}

// Builds the plan of the ubatch of n tokens at KV position start.
static void build_plan(const dispatcher *d, int start, int n, int last) {
	nsteps = nsegs = 0;
	big_side();
	open_seg(0);
	step *s = add(S_EMBED, n);
	s->start = start;
	int split = d->mode != MODE_NATIVE;
	int tb = n, eb = NEXP;  // big pool: tokens [0,tb) (token split) or experts [0,eb) (expert split)
	if (d->mode == MODE_TOKEN) tb = n - (int)lround(d->frac * n);
	if (d->mode == MODE_EXPERT) eb = NEXP - (int)lround(d->frac * NEXP);
	for (int l = 0; l < LAYERS; l++) {
		const layer_w *lw = &LW[l];
		int *sel = A.sel + (size_t)l * A.ub * TOPK;
		for (int t = 0; t < n; t++) route(l, start + t, sel + t * TOPK);
		part *pb = &PARTS[l][0], *pl = &PARTS[l][1];
		build_part(pb, sel, 0, tb, 0, eb);
		if (split) {
			if (d->mode == MODE_TOKEN) build_part(pl, sel, tb, n, 0, NEXP);
			else build_part(pl, sel, 0, n, eb, NEXP);
		}
		// attention
		add(S_NORM, n);
		add_quant(A.xn, DM, 0, n, NULL, NULL, A.qtok, 0);
		add_matmul(lw->qkv, DM, QKVW, A.qtok, n, A.qkv, 0);
		s = add(S_KVSTORE, n);
		s->layer = l;
		s->start = start;
		s = add(S_ATTN, n * NHEAD);
		s->layer = l;
		s->start = start;
		add_quant(A.att, ATTW, 0, n, NULL, NULL, A.qatt, 0);
		add_matmul(lw->out, ATTW, DM, A.qatt, n, A.x, 1);
		// router
		add(S_NORM, n);
		add_quant(A.xn, DM, 0, n, NULL, NULL, A.qtok, 0);
		add_matmul(lw->router, DM, NEXP, A.qtok, n, A.rlog, 0);
		// routed experts: gate, up, down
		for (int which = 0; which < 3; which++) {
			if (split) open_seg(1);
			add_expert_side(l, which, pb, 0, 0, tb);
			if (split) {
				little_side();
				add_expert_side(l, which, pl, d->mode == MODE_EXPERT, tb, n);
				big_side();
				open_seg(0);
			}
		}
		s = add(S_COMBINE, n);
		s->layer = l;
	}
	if (last) {
		s = add(S_OUTNORM, 1);
		s->n = n;
		add_matmul(W_OUT, DM, VOCAB, A.qout, 1, A.logits, 0);
	}
}

static void run_plan(dispatcher *d) {
	wctx *main_ctx = &d->big.ctx[0];
	for (int g = 0; g < nsegs; g++) {
		segment *sg = &SEGS[g];
		int64_t t0 = sg->split ? now_ns() : 0;
		if (sg->split) pool_post(&d->little, &STEPS[sg->l0], sg->ln);
		if (sg->bn > 0) {
			if (d->big.nth > 1) pool_post(&d->big, &STEPS[sg->b0], sg->bn);
			run_job(&d->big, main_ctx, &STEPS[sg->b0], sg->bn);
			if (d->big.nth > 1) pool_wait(&d->big);
		}
		if (sg->split) {
			int64_t tb = now_ns();
			pool_wait(&d->little);
			int64_t t1 = now_ns(), tl = atomic_load_explicit(&d->little.end_ns, memory_order_relaxed);
			d->split_wall_ns += t1 - t0;
			d->split_big_ns += tb - t0;
			d->split_little_ns += (tl > t0 ? tl : t1) - t0;
		}
	}
}

// One pp run of the whole prompt; returns the checksum of the final hidden
// state (all tokens) and of the last token's logits.
static double run_prompt(dispatcher *d, int prompt, int ub) {
	double sum = 0.0;
	d->split_wall_ns = d->split_big_ns = d->split_little_ns = 0;
	for (int start = 0; start < prompt; start += ub) {
		int n = prompt - start < ub ? prompt - start : ub;
		int last = start + n >= prompt;
		build_plan(d, start, n, last);
		run_plan(d);
		for (size_t i = 0; i < (size_t)n * DM; i++) sum += A.x[i];
		if (last)
			for (int i = 0; i < VOCAB; i++) sum += A.logits[i];
	}
	return sum;
}

// ---------------------------------------------------------------------------
// Knobs and flags.

static int parse_int(const char *s, long lo, long hi, long *out) {
	if (!s || !*s) return 0;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) return 0;
	*out = v;
	return 1;
}

static int parse_u64(const char *s, uint64_t *out) {
	if (!s || !*s || *s == '-') return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || end == s) return 0;
	*out = v;
	return 1;
}

static int parse_frac(const char *s, double *out) {
	if (!s || !*s) return 0;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v < 0 || v > 1) return 0;
	*out = v;
	return 1;
}

static cpu_set_t allowed_cpus;

// Parses "0-3,6" into cpus; returns the count or dies.
static int parse_cpus(const char *knob, const char *s, int **out) {
	int *cpus = xalloc(CPU_SETSIZE * sizeof(int)), n = 0;
	char seen[CPU_SETSIZE] = {0};
	const char *p = s;
	if (!*p) die(2, "%s=\"\": want a cpu list such as 0-3,6", knob);
	while (*p) {
		char *end;
		errno = 0;
		long a = strtol(p, &end, 10), b;
		if (end == p || errno || a < 0 || a >= CPU_SETSIZE || !isdigit((unsigned char)*p))
			die(2, "%s=\"%s\": want a cpu list such as 0-3,6", knob, s);
		p = end;
		b = a;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p)) die(2, "%s=\"%s\": want a cpu list such as 0-3,6", knob, s);
			b = strtol(p, &end, 10);
			if (errno || b < a || b >= CPU_SETSIZE) die(2, "%s=\"%s\": bad cpu range", knob, s);
			p = end;
		}
		for (long c = a; c <= b; c++) {
			if (seen[c]) die(2, "%s=\"%s\": cpu %ld given twice", knob, s, c);
			if (!CPU_ISSET((int)c, &allowed_cpus)) die(2, "%s=\"%s\": cpu %ld is not usable here", knob, s, c);
			seen[c] = 1;
			cpus[n++] = (int)c;
		}
		if (*p == ',') {
			p++;
			if (!*p) die(2, "%s=\"%s\": want a cpu list such as 0-3,6", knob, s);
		} else if (*p) {
			die(2, "%s=\"%s\": want a cpu list such as 0-3,6", knob, s);
		}
	}
	*out = cpus;
	return n;
}

static const char *env(const char *name) {
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static int ieq(const char *a, const char *b) {
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
	return *a == *b;
}

// Comma-separated list of ints (llama-bench style: -p 64,128).
static int parse_list(const char *flag, const char *s, long lo, long hi, long *vals, int max) {
	int n = 0;
	char buf[512];
	if (strlen(s) >= sizeof buf) die(2, "%s %s: too long", flag, s);
	if (!*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,")) die(2, "%s \"%s\": want a number or a list a,b,c", flag, s);
	strcpy(buf, s);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= max) die(2, "%s %s: too many values", flag, s);
		if (!parse_int(tok, lo, hi, &vals[n])) die(2, "%s %s: want integers in [%ld, %ld]", flag, s, lo, hi);
		n++;
	}
	if (n == 0) die(2, "%s \"%s\": want a number or a list a,b,c", flag, s);
	return n;
}

static void usage(FILE *f) {
	fprintf(f,
	        "usage: %s [-p N[,N..]] [-ub N[,N..]] [-b N] [-n 0] [-r N] [-t N[,N..]] [--poll N]\n"
	        "          [-o jsonl|json|csv|md] [--seed N] [--no-warmup]\n"
	        "knobs: ORK_MOE_BIGLITTLE=0|1 ORK_BL_SPLIT=token|expert ORK_BL_LITTLE_FRAC=0.12\n"
	        "       ORK_BL_POLL=0..100 ORK_BL_BIG_CPUS=1 ORK_BL_LITTLE_CPUS=0 ORK_BL_BIG_THREADS\n"
	        "       ORK_BL_LITTLE_THREADS ORK_BL_SPIN_ROUNDS=4096 (spin rounds per poll level)\n",
	        prog);
}

// ---------------------------------------------------------------------------
// Output: llama-bench fields.

enum { FMT_JSONL, FMT_JSON, FMT_CSV, FMT_MD };

typedef struct { const char *name; char kind; char val[2048]; } field;  // kind: s string, n number/bool/raw

static int nfields;
static field FIELDS[64];

static void json_escape(char *dst, size_t cap, const char *s) {
	size_t j = 0;
	for (; *s && j + 7 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			dst[j++] = '\\';
			dst[j++] = (char)c;
		} else if (c < 0x20) {
			j += (size_t)snprintf(dst + j, cap - j, "\\u%04x", c);
		} else {
			dst[j++] = (char)c;
		}
	}
	dst[j] = 0;
}

static void fset(const char *name, char kind, const char *fmt, ...) {
	field *f = &FIELDS[nfields++];
	f->name = name;
	f->kind = kind;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->val, sizeof f->val, fmt, ap);
	va_end(ap);
}

static char CPU_INFO[256] = "CPU";

static void read_cpu_info(void) {
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f) return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t') c++;
				c[strcspn(c, "\n")] = 0;
				if (*c) snprintf(CPU_INFO, sizeof CPU_INFO, "%s", c);
			}
			break;
		}
	}
	fclose(f);
}

static void cpu_mask(char *buf, size_t cap, const int *cpus, int n) {
	int top = 0;
	for (int i = 0; i < n; i++) top = cpus[i] > top ? cpus[i] : top;
	int nib = top / 4 + 1;
	size_t j = 0;
	buf[j++] = '0';
	buf[j++] = 'x';
	for (int k = nib - 1; k >= 0 && j + 1 < cap; k--) {
		int v = 0;
		for (int i = 0; i < n; i++)
			if (cpus[i] / 4 == k) v |= 1 << (cpus[i] % 4);
		buf[j++] = "0123456789abcdef"[v];
	}
	buf[j] = 0;
}

static void cpu_list(char *buf, size_t cap, const int *cpus, int n) {
	size_t j = 0;
	buf[0] = 0;
	for (int i = 0; i < n && j + 12 < cap; i++) j += (size_t)snprintf(buf + j, cap - j, i ? ",%d" : "%d", cpus[i]);
}

typedef struct {
	int prompt, ub, batch, big_threads, little_threads, poll, mode;
	double frac;
	int *big_cpus, nbig, *little_cpus, nlittle;
	int reps;
	int64_t *ns;
	char test_time[32];
} result;

static void fill_fields(const result *r) {
	char buf[2048], esc[1024];
	nfields = 0;
	int nthreads = r->big_threads + (r->mode != MODE_NATIVE ? r->little_threads : 0);
	fset("build_commit", 's', "ork-c");
	fset("build_number", 'n', "1");
	json_escape(esc, sizeof esc, CPU_INFO);
	fset("cpu_info", 's', "%s", esc);
	fset("gpu_info", 's', "");
	fset("backends", 's', "CPU");
	fset("model_filename", 's', "ork-dispatch-synthetic");
	fset("model_type", 's', "orkmoe %dL %dx%d top-%d Q4_0", LAYERS, NEXP, FFN, TOPK);
	fset("model_size", 'n', "%lld", (long long)model_bytes());
	fset("model_n_params", 'n', "%lld", (long long)model_params());
	fset("n_batch", 'n', "%d", r->batch);
	fset("n_ubatch", 'n', "%d", r->ub);
	fset("n_threads", 'n', "%d", nthreads);
	cpu_mask(buf, sizeof buf, r->big_cpus, r->nbig);
	fset("cpu_mask", 's', "%s", buf);
	fset("cpu_strict", 'b', "true");
	fset("poll", 'n', "%d", r->poll);
	fset("type_k", 's', "f32");
	fset("type_v", 's', "f32");
	fset("n_gpu_layers", 'n', "0");
	fset("n_cpu_moe", 'n', "0");
	fset("split_mode", 's', "layer");
	fset("main_gpu", 'n', "0");
	fset("no_kv_offload", 'b', "false");
	fset("flash_attn", 'n', "0");
	fset("devices", 's', "auto");
	fset("tensor_split", 's', "0.00");
	fset("tensor_buft_overrides", 's', "none");
	fset("load_mode", 's', "none");
	fset("embeddings", 'b', "false");
	fset("no_op_offload", 'n', "0");
	fset("no_host", 'b', "false");
	fset("fit_target", 'n', "0");
	fset("fit_min_ctx", 'n', "0");
	fset("n_prompt", 'n', "%d", r->prompt);
	fset("n_gen", 'n', "0");
	fset("n_depth", 'n', "0");
	fset("test_time", 's', "%s", r->test_time);
	double mns = 0, sns = 0, mts = 0, sts = 0;
	for (int i = 0; i < r->reps; i++) {
		mns += (double)r->ns[i];
		mts += 1e9 * r->prompt / (double)r->ns[i];
	}
	mns /= r->reps;
	mts /= r->reps;
	for (int i = 0; i < r->reps && r->reps > 1; i++) {
		double ts = 1e9 * r->prompt / (double)r->ns[i];
		sns += ((double)r->ns[i] - mns) * ((double)r->ns[i] - mns);
		sts += (ts - mts) * (ts - mts);
	}
	if (r->reps > 1) {
		sns = sqrt(sns / (r->reps - 1));
		sts = sqrt(sts / (r->reps - 1));
	}
	fset("avg_ns", 'n', "%lld", (long long)llround(mns));
	fset("stddev_ns", 'n', "%lld", (long long)llround(sns));
	fset("avg_ts", 'n', "%f", mts);
	fset("stddev_ts", 'n', "%f", sts);
	size_t j = 0;
	j += (size_t)snprintf(buf + j, sizeof buf - j, "[ ");
	for (int i = 0; i < r->reps && j + 32 < sizeof buf; i++)
		j += (size_t)snprintf(buf + j, sizeof buf - j, i ? ", %lld" : "%lld", (long long)r->ns[i]);
	snprintf(buf + j, sizeof buf - j, " ]");
	fset("samples_ns", 'a', "%s", buf);
	j = 0;
	j += (size_t)snprintf(buf + j, sizeof buf - j, "[ ");
	for (int i = 0; i < r->reps && j + 32 < sizeof buf; i++)
		j += (size_t)snprintf(buf + j, sizeof buf - j, i ? ", %.6g" : "%.6g", 1e9 * r->prompt / (double)r->ns[i]);
	snprintf(buf + j, sizeof buf - j, " ]");
	fset("samples_ts", 'a', "%s", buf);
	fset("bl_split", 's', "%s", mode_names[r->mode]);
	fset("bl_little_frac", 'n', "%f", r->mode != MODE_NATIVE ? r->frac : 0.0);
	fset("bl_big_threads", 'n', "%d", r->big_threads);
	fset("bl_little_threads", 'n', "%d", r->mode != MODE_NATIVE ? r->little_threads : 0);
	cpu_list(buf, sizeof buf, r->big_cpus, r->nbig);
	fset("bl_big_cpus", 's', "%s", buf);
	cpu_list(buf, sizeof buf, r->little_cpus, r->nlittle);
	fset("bl_little_cpus", 's', "%s", buf);
}

static void print_json_fields(const char *indent, const char *sep) {
	for (int i = 0; i < nfields; i++) {
		field *f = &FIELDS[i];
		const char *comma = i + 1 < nfields ? sep : "";
		if (f->kind == 's') printf("%s\"%s\": \"%s\"%s", indent, f->name, f->val, comma);
		else printf("%s\"%s\": %s%s", indent, f->name, f->val, comma);
	}
}

static void print_record(int fmt, const result *r, int first) {
	fill_fields(r);
	switch (fmt) {
	case FMT_JSONL:
		printf("{");
		print_json_fields("", ", ");
		printf("}\n");
		break;
	case FMT_JSON:
		printf(first ? "[\n  {\n" : ",\n  {\n");
		print_json_fields("    ", ",\n");
		printf("\n  }");
		break;
	case FMT_CSV:
		if (first) {
			for (int i = 0; i < nfields; i++)
				if (FIELDS[i].kind != 'a') printf(i ? ",%s" : "%s", FIELDS[i].name);
			printf("\n");
		}
		for (int i = 0; i < nfields; i++) {
			if (FIELDS[i].kind == 'a') continue;
			const char *v = FIELDS[i].val;
			if (FIELDS[i].kind == 'b') v = strcmp(v, "true") == 0 ? "1" : "0";
			printf(i ? ",\"%s\"" : "\"%s\"", v);
		}
		printf("\n");
		break;
	case FMT_MD: {
		if (first) {
			printf("| model                          |       size |     params | backend    | threads | n_ubatch | poll | bl_split | bl_little_frac |            test |                  t/s |\n");
			printf("| ------------------------------ | ---------: | ---------: | ---------- | ------: | -------: | ---: | -------: | -------------: | --------------: | -------------------: |\n");
		}
		char model[64], size[32], params[32], test[32], ts[64];
		snprintf(model, sizeof model, "orkmoe %dL %dx%d top-%d Q4_0", LAYERS, NEXP, FFN, TOPK);
		snprintf(size, sizeof size, "%.2f MiB", model_bytes() / 1048576.0);
		snprintf(params, sizeof params, "%.2f M", model_params() / 1e6);
		snprintf(test, sizeof test, "pp%d", r->prompt);
		double mts = 0, sts = 0;
		for (int i = 0; i < r->reps; i++) mts += 1e9 * r->prompt / (double)r->ns[i];
		mts /= r->reps;
		for (int i = 0; i < r->reps && r->reps > 1; i++) {
			double v = 1e9 * r->prompt / (double)r->ns[i];
			sts += (v - mts) * (v - mts);
		}
		if (r->reps > 1) sts = sqrt(sts / (r->reps - 1));
		snprintf(ts, sizeof ts, "%.2f ± %.2f", mts, sts);
		int nthreads = r->big_threads + (r->mode != MODE_NATIVE ? r->little_threads : 0);
		printf("| %-30s | %10s | %10s | %-10s | %7d | %8d | %4d | %8s | %14.6f | %15s | %20s |\n", model, size, params, "CPU",
		       nthreads, r->ub, r->poll, mode_names[r->mode], r->mode != MODE_NATIVE ? r->frac : 0.0, test, ts);
		break;
	}
	}
	fflush(stdout);
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
	long plist[32], ublist[32], tlist[32];
	int np = 1, nub = 1, nt = 0, fmt = FMT_JSONL, warmup = 1;
	long reps = 3, batch = 2048, poll_flag = -1;
	plist[0] = 64;
	ublist[0] = 64;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		long x;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--no-warmup")) {
			warmup = 0;
			continue;
		}
		int known = !strcmp(a, "-p") || !strcmp(a, "--n-prompt") || !strcmp(a, "-ub") || !strcmp(a, "--ubatch-size") ||
		            !strcmp(a, "-b") || !strcmp(a, "--batch-size") || !strcmp(a, "-n") || !strcmp(a, "--n-gen") ||
		            !strcmp(a, "-r") || !strcmp(a, "--repetitions") || !strcmp(a, "-t") || !strcmp(a, "--threads") ||
		            !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--seed") || !strcmp(a, "--poll");
		if (!known) die(2, "unknown argument: %s (see --help)", a);
		if (!v) die(2, "%s: missing value", a);
		i++;
		if (!strcmp(a, "-p") || !strcmp(a, "--n-prompt")) {
			np = parse_list(a, v, 1, MAX_TOKENS, plist, 32);
		} else if (!strcmp(a, "-ub") || !strcmp(a, "--ubatch-size")) {
			nub = parse_list(a, v, 1, MAX_TOKENS, ublist, 32);
		} else if (!strcmp(a, "-b") || !strcmp(a, "--batch-size")) {
			if (!parse_int(v, 1, MAX_TOKENS, &batch)) die(2, "%s %s: want an integer in [1, %d]", a, v, MAX_TOKENS);
		} else if (!strcmp(a, "-n") || !strcmp(a, "--n-gen")) {
			if (!parse_int(v, 0, 0, &x)) die(2, "%s %s: only -n 0 is supported (prompt processing)", a, v);
		} else if (!strcmp(a, "-r") || !strcmp(a, "--repetitions")) {
			if (!parse_int(v, 1, 1000, &reps)) die(2, "%s %s: want an integer in [1, 1000]", a, v);
		} else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) {
			nt = parse_list(a, v, 1, 1024, tlist, 32);
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (!strcmp(v, "jsonl")) fmt = FMT_JSONL;
			else if (!strcmp(v, "json")) fmt = FMT_JSON;
			else if (!strcmp(v, "csv")) fmt = FMT_CSV;
			else if (!strcmp(v, "md")) fmt = FMT_MD;
			else die(2, "%s %s: want jsonl, json, csv or md", a, v);
		} else if (!strcmp(a, "--seed")) {
			if (!parse_u64(v, &SEED)) die(2, "%s %s: want a non-negative integer", a, v);
		} else if (!strcmp(a, "--poll")) {
			if (!parse_int(v, 0, 100, &poll_flag)) die(2, "%s %s: want an integer in [0, 100]", a, v);
		}
	}

	// Knobs (all validated, also the ones a native run does not use).
	if (sched_getaffinity(0, sizeof allowed_cpus, &allowed_cpus) != 0) die(1, "sched_getaffinity: %s", strerror(errno));
	const char *k;
	int mode = MODE_NATIVE, split_mode = MODE_TOKEN;
	if ((k = env("ORK_MOE_BIGLITTLE"))) {
		if (ieq(k, "1") || ieq(k, "true") || ieq(k, "on") || ieq(k, "yes")) mode = MODE_TOKEN;
		else if (!(ieq(k, "0") || ieq(k, "false") || ieq(k, "off") || ieq(k, "no")))
			die(2, "ORK_MOE_BIGLITTLE=\"%s\": want 0 (native) or 1 (split)", k);
	}
	if ((k = env("ORK_BL_SPLIT"))) {
		if (ieq(k, "token") || ieq(k, "tokens")) split_mode = MODE_TOKEN;
		else if (ieq(k, "expert") || ieq(k, "experts")) split_mode = MODE_EXPERT;
		else die(2, "ORK_BL_SPLIT=\"%s\": want token or expert", k);
	}
	if (mode != MODE_NATIVE) mode = split_mode;
	double frac = 0.12;
	if ((k = env("ORK_BL_LITTLE_FRAC")) && !parse_frac(k, &frac)) die(2, "ORK_BL_LITTLE_FRAC=\"%s\": want a number in [0,1]", k);
	long poll = poll_flag >= 0 ? poll_flag : 50;
	if ((k = env("ORK_BL_POLL")) && !parse_int(k, 0, 100, &poll)) die(2, "ORK_BL_POLL=\"%s\": want an integer in [0,100]", k);
	long spin_rounds = 4096;
	if ((k = env("ORK_BL_SPIN_ROUNDS")) && !parse_int(k, 0, 100000000, &spin_rounds))
		die(2, "ORK_BL_SPIN_ROUNDS=\"%s\": want an integer in [0,100000000]", k);
	int *big_cpus, *little_cpus;
	int nbig = parse_cpus("ORK_BL_BIG_CPUS", env("ORK_BL_BIG_CPUS") ? env("ORK_BL_BIG_CPUS") : "1", &big_cpus);
	int nlittle = parse_cpus("ORK_BL_LITTLE_CPUS", env("ORK_BL_LITTLE_CPUS") ? env("ORK_BL_LITTLE_CPUS") : "0", &little_cpus);
	long big_env = 0, little_threads = nlittle;
	if ((k = env("ORK_BL_BIG_THREADS")) && !parse_int(k, 1, 1024, &big_env))
		die(2, "ORK_BL_BIG_THREADS=\"%s\": want an integer in [1,1024]", k);
	if ((k = env("ORK_BL_LITTLE_THREADS")) && !parse_int(k, 1, 1024, &little_threads))
		die(2, "ORK_BL_LITTLE_THREADS=\"%s\": want an integer in [1,1024]", k);
	if (big_env > 0) {  // the knob wins over -t
		nt = 1;
		tlist[0] = big_env;
	} else if (nt == 0) {
		nt = 1;
		tlist[0] = nbig;
	}

	long maxp = 0, maxub = 0;
	for (int i = 0; i < np; i++) maxp = plist[i] > maxp ? plist[i] : maxp;
	for (int i = 0; i < nub; i++) {
		long u = ublist[i] < batch ? ublist[i] : batch;
		maxub = u > maxub ? u : maxub;
	}
	if (maxub > maxp) maxub = maxp;

	for (int i = 0; i < 65536; i++) f16tab[i] = f16_decode((uint16_t)i);
	read_cpu_info();
	init_weights(SEED, (int)maxp);
	alloc_acts((int)maxub, (int)maxp);
	alloc_parts((int)maxub);
	{
		int err = pin_self(big_cpus[0]);
		if (err != 0) die(2, "cannot pin the main thread to cpu %d: %s", big_cpus[0], strerror(err));
	}

	int64_t *ns = xalloc((size_t)reps * sizeof(int64_t));
	int first = 1;
	for (int ti = 0; ti < nt; ti++) {
		dispatcher d;
		memset(&d, 0, sizeof d);
		d.mode = mode;
		d.frac = frac;
		pool_start(&d.big, "big", (int)tlist[ti], 1, big_cpus, nbig, (int)poll, spin_rounds);
		if (mode != MODE_NATIVE)
			pool_start(&d.little, "little", (int)little_threads, 0, little_cpus, nlittle, (int)poll, spin_rounds);
		for (int pi = 0; pi < np; pi++)
			for (int ui = 0; ui < nub; ui++) {
				int prompt = (int)plist[pi];
				int ub = (int)(ublist[ui] < batch ? ublist[ui] : batch);
				int ub_run = ub < prompt ? ub : prompt;
				result r = {.prompt = prompt, .ub = (int)ublist[ui], .batch = (int)batch, .big_threads = (int)tlist[ti],
				            .little_threads = (int)little_threads, .poll = (int)poll, .mode = mode, .frac = frac,
				            .big_cpus = big_cpus, .nbig = nbig, .little_cpus = little_cpus, .nlittle = nlittle,
				            .reps = (int)reps, .ns = ns};
				time_t now = time(NULL);
				strftime(r.test_time, sizeof r.test_time, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
				double sum0 = 0;
				if (warmup) sum0 = run_prompt(&d, prompt, ub_run);
				for (int rep = 0; rep < reps; rep++) {
					int64_t t0 = now_ns();
					double sum = run_prompt(&d, prompt, ub_run);
					ns[rep] = now_ns() - t0;
					if ((warmup || rep > 0) && sum != sum0)
						die(1, "checksum %.17g differs from %.17g of an earlier run: the dispatcher is not deterministic", sum, sum0);
					sum0 = sum;
				}
				fprintf(stderr, "%s: checksum %.10e split=%s frac=%.3f pp%d ub%d big_threads=%d little_threads=%d poll=%ld", prog,
				        sum0, mode_names[mode], mode != MODE_NATIVE ? frac : 0.0, prompt, r.ub, (int)tlist[ti],
				        mode != MODE_NATIVE ? (int)little_threads : 0, poll);
				if (mode != MODE_NATIVE)
					fprintf(stderr, "; last run's split ops: %.2f ms, big done after %.2f, little after %.2f", d.split_wall_ns / 1e6,
					        d.split_big_ns / 1e6, d.split_little_ns / 1e6);
				fputc('\n', stderr);
				print_record(fmt, &r, first);
				first = 0;
			}
		pool_stop(&d.little);
		pool_stop(&d.big);
	}
	if (fmt == FMT_JSON) printf("\n]\n");
	else if (fmt == FMT_MD) printf("\nbuild: ork-c (1)\n");
	return 0;
}
