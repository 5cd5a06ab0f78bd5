/* A one-element put of 2, 4 or 8 bytes to a same-node peer is one store: the peer,
 * polling the word with plain volatile loads, sees only values that were put, never
 * a mix of two. Each even PE puts to the next PE a sequence of values whose two halves
 * are equal, through every routine that puts one such element (typed, sized, putmem,
 * ctx, nbi); the peer checks the halves of every value it sees. (A 1-byte put cannot
 * be seen in parts.)
 *
 * This program's memcpy stores the upper half, yields the CPU, then stores the lower
 * half, as memcpy may: a put that copies one element with memcpy then shows the
 * reader a torn value at once, where glibc's memcpy (which stores whole words, twice)
 * would show it only by chance. Shoal's one-store path does not call memcpy.
 * Sanitizers intercept memcpy themselves, so their builds check with libc's. */
#include <sched.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    /* volatile: the compiler must not turn these loops back into a memcpy call. */
    volatile unsigned char *d = dst;
    const volatile unsigned char *s = src;
    size_t half = n == 2 || n == 4 || n == 8 ? n / 2 : 0;
    for (size_t i = n; i-- > half;)
        d[i] = s[i];
    if (half)
        sched_yield();
    for (size_t i = half; i-- > 0;)
        d[i] = s[i];
    return dst;
}
#endif

#define LAST 200 /* values 1..LAST in each half */

static shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;

static void long_put(void *d, uint64_t v, int pe)
{
    long x = (long)v;
    shmem_long_put(d, &x, 1, pe);
}
static void uint64_put(void *d, uint64_t v, int pe)
{
    shmem_uint64_put(d, &v, 1, pe);
}
static void put64(void *d, uint64_t v, int pe)
{
    shmem_put64(d, &v, 1, pe);
}
static void putmem8(void *d, uint64_t v, int pe)
{
    shmem_putmem(d, &v, 8, pe);
}
static void long_put_nbi(void *d, uint64_t v, int pe)
{
    long x = (long)v;
    shmem_long_put_nbi(d, &x, 1, pe);
}
static void ctx_long_put(void *d, uint64_t v, int pe)
{
    long x = (long)v;
    shmem_ctx_long_put(ctx, d, &x, 1, pe);
}
static void ctx_putmem_nbi8(void *d, uint64_t v, int pe)
{
    shmem_ctx_putmem_nbi(ctx, d, &v, 8, pe);
}
static void int_put(void *d, uint64_t v, int pe)
{
    int x = (int)v;
    shmem_int_put(d, &x, 1, pe);
}
static void put32(void *d, uint64_t v, int pe)
{
    uint32_t x = (uint32_t)v;
    shmem_put32(d, &x, 1, pe);
}
static void putmem4(void *d, uint64_t v, int pe)
{
    uint32_t x = (uint32_t)v;
    shmem_putmem(d, &x, 4, pe);
}
static void ctx_int_put_nbi(void *d, uint64_t v, int pe)
{
    int x = (int)v;
    shmem_ctx_int_put_nbi(ctx, d, &x, 1, pe);
}
static void short_put(void *d, uint64_t v, int pe)
{
    short x = (short)v;
    shmem_short_put(d, &x, 1, pe);
}
static void put16(void *d, uint64_t v, int pe)
{
    uint16_t x = (uint16_t)v;
    shmem_put16(d, &x, 1, pe);
}
static void putmem2(void *d, uint64_t v, int pe)
{
    uint16_t x = (uint16_t)v;
    shmem_putmem(d, &x, 2, pe);
}
static void ctx_short_put_nbi(void *d, uint64_t v, int pe)
{
    short x = (short)v;
    shmem_ctx_short_put_nbi(ctx, d, &x, 1, pe);
}

static const struct form {
    const char *name;
    size_t size;
    void (*put)(void *dest, uint64_t value, int pe);
} forms[] = {
    { "shmem_long_put", 8, long_put },
    { "shmem_uint64_put", 8, uint64_put },
    { "shmem_put64", 8, put64 },
    { "shmem_putmem", 8, putmem8 },
    { "shmem_long_put_nbi", 8, long_put_nbi },
    { "shmem_ctx_long_put", 8, ctx_long_put },
    { "shmem_ctx_putmem_nbi", 8, ctx_putmem_nbi8 },
    { "shmem_int_put", 4, int_put },
    { "shmem_put32", 4, put32 },
    { "shmem_putmem", 4, putmem4 },
    { "shmem_ctx_int_put_nbi", 4, ctx_int_put_nbi },
    { "shmem_short_put", 2, short_put },
    { "shmem_put16", 2, put16 },
    { "shmem_putmem", 2, putmem2 },
    { "shmem_ctx_short_put_nbi", 2, ctx_short_put_nbi },
};

/* k in both halves of a size-byte word. */
static uint64_t both_halves(uint64_t k, size_t size)
{
    return k | k << (size * 4);
}

static uint64_t load(const volatile void *w, size_t size)
{
    switch (size) {
    case 2: return *(const volatile uint16_t *)w;
    case 4: return *(const volatile uint32_t *)w;
    default: return *(const volatile uint64_t *)w;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Polls until the last value arrives; every value seen must have equal halves. */
static void read_all(const struct form *f, uint64_t *word, int me)
{
    uint64_t mask = (1ull << (f->size * 4)) - 1, seen = 0;
    double give_up = now() + 20;
    while ((seen & mask) != LAST) {
        seen = load(word, f->size);
        if ((seen & mask) != seen >> (f->size * 4)) {
            fprintf(stderr,
                    "FAIL put_word: PE %d: %s of %zu bytes from PE %d: saw 0x%llx, a value "
                    "no put wrote (its halves differ): a one-element put to a same-node "
                    "peer must be one store\n",
                    me, f->name, f->size, me - 1, (unsigned long long)seen);
            shmem_global_exit(1);
        }
        if (now() > give_up) {
            fprintf(stderr,
                    "FAIL put_word: PE %d: %s of %zu bytes from PE %d: the last value did "
                    "not arrive within 20 s (0x%llx seen)\n",
                    me, f->name, f->size, me - 1, (unsigned long long)seen);
            shmem_global_exit(1);
        }
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) != n) {
        if (me == 0)
            printf("skipped: the PEs are not all on one node, and the test is of the "
                   "same-node put\n");
        shmem_finalize();
        return 77;
    }
    if (shmem_ctx_create(0, &ctx))
        ctx = SHMEM_CTX_DEFAULT;
    uint64_t *word = shmem_malloc(sizeof *word);
    int writer = me % 2 == 0 && me + 1 < n, reader = me % 2 == 1;
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        *word = 0;
        shmem_barrier_all();
        if (writer) {
            for (uint64_t k = 1; k <= LAST; k++)
                forms[i].put(word, both_halves(k, forms[i].size), me + 1);
            shmem_ctx_quiet(ctx);
        } else if (reader) {
            read_all(&forms[i], word, me);
        }
        shmem_barrier_all();
    }
    if (me == 0)
        printf("put_word: %zu routines, %d PEs: every value seen was one put's\n",
               sizeof forms / sizeof *forms, n);
    shmem_free(word);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
