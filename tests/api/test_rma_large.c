/* Large, empty and unaligned byte transfers.
 *   - 4 MiB and 16 MiB shmem_putmem/getmem and shmem_ctx_putmem_nbi/getmem_nbi between
 *     neighbours ((me+1)%n written, (me+n-1)%n read), every byte checked;
 *   - zero-length transfers of every shape (putmem/getmem[_nbi], typed, sized, iput,
 *     ibput, also with NULL pointers) must not touch anything;
 *   - unaligned transfers: starting at byte 1 (and other odd offsets), odd lengths, with
 *     guard bytes either side that must stay untouched.
 * The heap is sized by SHMEM_SYMMETRIC_SIZE (see rma.cmake). */
#include <shmem.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define MiB (1024u * 1024u)
#define BIG (16 * MiB)

/* 64-bit word i of PE pe's source (salt s): splitmix64 of a unique key. */
static uint64_t word(int pe, size_t i, unsigned s)
{
    uint64_t z = ((uint64_t)pe << 40) ^ ((uint64_t)s << 56) ^ (uint64_t)i;
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned char byte_at(int pe, size_t off, unsigned s)
{
    uint64_t w = word(pe, off / 8, s);
    unsigned char b[8];
    memcpy(b, &w, 8);
    return b[off % 8];
}

static void fill(void *buf, size_t len, int pe, unsigned s)
{
    uint64_t *w = buf;
    for (size_t i = 0; i < len / 8; i++)
        w[i] = word(pe, i, s);
}

/* buf[0..len) must equal PE pe's pattern starting at byte soff. */
static void check_bytes(const char *what, const unsigned char *buf, size_t len, int pe,
                        size_t soff, unsigned s)
{
    size_t i = 0;
    if (soff % 8 == 0 && (uintptr_t)buf % 8 == 0) {
        const uint64_t *w = (const uint64_t *)buf;
        for (; i + 8 <= len; i += 8)
            if (w[i / 8] != word(pe, (soff + i) / 8, s))
                break; /* report the byte below */
    }
    for (; i < len; i++) {
        unsigned char want = byte_at(pe, soff + i, s);
        if (buf[i] != want)
            fprintf(stderr,
                    "PE %d: %s: byte %zu of %zu: got 0x%02x, expected 0x%02x "
                    "(PE %d's byte %zu)\n",
                    me, what, i, len, buf[i], want, pe, soff + i);
        CHECK_EQ(buf[i], want);
    }
}

static void check_zero(const char *what, const unsigned char *buf, size_t len)
{
    static const unsigned char zeros[4096];
    size_t i = 0;
    while (i + sizeof zeros <= len && memcmp(buf + i, zeros, sizeof zeros) == 0)
        i += sizeof zeros; /* fast path; the byte loop reports the first difference */
    for (; i < len; i++) {
        if (buf[i] != 0)
            fprintf(stderr, "PE %d: %s: byte %zu should be untouched (0), is 0x%02x\n", me,
                    what, i, buf[i]);
        CHECK_EQ(buf[i], 0);
    }
}

/* buf[0..window) after a transfer from the left neighbour (pattern salt s): 0 below
 * doff, len bytes of its source from byte soff, 0 above. fmt and what follows name
 * the transfer, as printf. */
static void check_window(const unsigned char *buf, size_t window, size_t doff, size_t len,
                         size_t soff, unsigned s, const char *fmt, ...)
        __attribute__((format(printf, 7, 8)));
static void check_window(const unsigned char *buf, size_t window, size_t doff, size_t len,
                         size_t soff, unsigned s, const char *fmt, ...)
{
    char what[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    check_zero(what, buf, doff);
    check_bytes(what, buf + doff, len, left, soff, s);
    check_zero(what, buf + doff + len, window - doff - len);
}

static void large(unsigned char *src, unsigned char *dst, unsigned char *loc)
{
    static const size_t sizes[] = { 4 * MiB, 16 * MiB };
    for (unsigned k = 0; k < 2; k++) {
        size_t len = sizes[k];
        fill(src, len, me, k);

        /* Blocking putmem to the right, getmem from the left. */
        memset(dst, 0, BIG);
        shmem_barrier_all();
        shmem_putmem(dst, src, len, right);
        memset(loc, 0, BIG);
        shmem_getmem(loc, src, len, left);
        check_window(loc, BIG, 0, len, 0, k, "getmem %zu MiB", len / MiB);
        shmem_barrier_all();
        check_window(dst, BIG, 0, len, 0, k, "putmem %zu MiB", len / MiB);

        /* Non-blocking, on the ctx_ forms, completed by quiet. */
        memset(dst, 0, BIG);
        shmem_barrier_all();
        shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, dst, src, len, right);
        memset(loc, 0, BIG);
        shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, loc, src, len, left);
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
        check_window(loc, BIG, 0, len, 0, k, "ctx_getmem_nbi %zu MiB", len / MiB);
        shmem_barrier_all();
        check_window(dst, BIG, 0, len, 0, k, "ctx_putmem_nbi %zu MiB", len / MiB);
    }
}

static void zero_length(unsigned char *src, unsigned char *dst, unsigned char *loc)
{
    const size_t n = 4096;
    fill(src, n, me, 7);
    memset(dst, 0, n);
    memset(loc, 0, n);
    shmem_barrier_all();
    for (int q = 0; q < npes; q++) {
        int pe = (me + q) % npes;
        /* Valid symmetric addresses, nothing to move. */
        shmem_putmem(dst, src, 0, pe);
        shmem_getmem(loc, src, 0, pe);
        shmem_putmem_nbi(dst + 1, src, 0, pe);
        shmem_getmem_nbi(loc + 1, src, 0, pe);
        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, dst + 3, src + 5, 0, pe);
        shmem_ctx_getmem(SHMEM_CTX_DEFAULT, loc + 3, src + 5, 0, pe);
        shmem_long_put((long *)dst, (const long *)src, 0, pe);
        shmem_double_get((double *)loc, (const double *)src, 0, pe);
        shmem_char_put_nbi((char *)dst, (const char *)src, 0, pe);
        shmem_put32(dst, src, 0, pe);
        shmem_get64(loc, src, 0, pe);
        shmem_put128_nbi(dst, src, 0, pe);
        shmem_int_iput((int *)dst, (const int *)src, 2, 3, 0, pe);
        shmem_int_iget((int *)loc, (const int *)src, 2, 3, 0, pe);
        shmem_iput16(dst, src, 1, 1, 0, pe);
        shmem_iget16(loc, src, 1, 1, 0, pe);
        shmem_long_ibput((long *)dst, (const long *)src, 4, 4, 2, 0, pe);
        shmem_long_ibget((long *)loc, (const long *)src, 4, 4, 2, 0, pe);
        shmem_ibput8(dst, src, 4, 4, 2, 0, pe);
        shmem_ibget8(loc, src, 4, 4, 2, 0, pe);
        /* NULL pointers with zero length. */
        shmem_putmem(NULL, NULL, 0, pe);
        shmem_getmem(NULL, NULL, 0, pe);
        shmem_putmem_nbi(NULL, NULL, 0, pe);
        shmem_getmem_nbi(NULL, NULL, 0, pe);
        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);
        shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);
        shmem_int_put(NULL, NULL, 0, pe);
        shmem_int_get(NULL, NULL, 0, pe);
        shmem_ctx_float_put_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);
        shmem_put64(NULL, NULL, 0, pe);
        shmem_get8_nbi(NULL, NULL, 0, pe);
        shmem_long_iput(NULL, NULL, 1, 1, 0, pe);
        shmem_long_iget(NULL, NULL, 1, 1, 0, pe);
        shmem_iput32(NULL, NULL, 2, 2, 0, pe);
        shmem_int_ibput(NULL, NULL, 2, 2, 2, 0, pe);
        shmem_ibget64(NULL, NULL, 2, 2, 2, 0, pe);
    }
    shmem_quiet();
    check_zero("zero-length get", loc, n);
    shmem_barrier_all();
    check_zero("zero-length put", dst, n);
}

/* Odd offsets and lengths; each case gets its own window of dst with guard bytes. */
static void unaligned(unsigned char *src, unsigned char *dst, unsigned char *loc)
{
    static const struct {
        size_t doff, soff, len;
    } cases[] = {
        { 1, 1, 1 },     { 1, 0, 7 },       { 1, 3, 13 }, { 3, 1, 4095 },
        { 7, 5, 65537 }, { 1, 2, MiB + 3 }, { 5, 9, 33 }, { 1, 1, 3 * MiB + 1 },
    };
    /* Two passes of four cases; case i lives in window i % 4 of dst (and of loc). */
    const size_t window = BIG / 4;
    CHECK(sizeof cases / sizeof cases[0] == 8);
    for (int i = 0; i < 8; i++)
        CHECK(cases[i].doff + cases[i].len < window && cases[i].soff + cases[i].len <= BIG);

    fill(src, BIG, me, 9);
    memset(dst, 0, BIG);
    shmem_barrier_all();
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            memset(dst, 0, BIG);
            shmem_barrier_all();
        }
        for (int i = pass * 4; i < pass * 4 + 4; i++) {
            unsigned char *d = dst + (size_t)(i - pass * 4) * window;
            if (i % 2)
                shmem_putmem(d + cases[i].doff, src + cases[i].soff, cases[i].len, right);
            else
                shmem_putmem_nbi(d + cases[i].doff, src + cases[i].soff, cases[i].len, right);

            unsigned char *l = loc + (size_t)(i - pass * 4) * window;
            memset(l, 0, window);
            if (i % 2)
                shmem_getmem_nbi(l + cases[i].doff, src + cases[i].soff, cases[i].len, left);
            else
                shmem_getmem(l + cases[i].doff, src + cases[i].soff, cases[i].len, left);
        }
        shmem_quiet();
        for (int i = pass * 4; i < pass * 4 + 4; i++) {
            check_window(loc + (size_t)(i - pass * 4) * window, window, cases[i].doff,
                         cases[i].len, cases[i].soff, 9, "getmem dst+%zu src+%zu len %zu",
                         cases[i].doff, cases[i].soff, cases[i].len);
        }
        shmem_barrier_all();
        for (int i = pass * 4; i < pass * 4 + 4; i++) {
            check_window(dst + (size_t)(i - pass * 4) * window, window, cases[i].doff,
                         cases[i].len, cases[i].soff, 9, "putmem dst+%zu src+%zu len %zu",
                         cases[i].doff, cases[i].soff, cases[i].len);
        }
    }
}

int main(void)
{
    ring_init();

    unsigned char *src = shmem_malloc(BIG);
    unsigned char *dst = shmem_malloc(BIG);
    unsigned char *loc = malloc(BIG);
    CHECK(src != NULL && dst != NULL && loc != NULL);

    large(src, dst, loc);
    shmem_barrier_all();
    zero_length(src, dst, loc);
    shmem_barrier_all();
    unaligned(src, dst, loc);

    shmem_barrier_all();
    free(loc);
    shmem_free(dst);
    shmem_free(src);
    if (me == 0)
        printf("test_rma_large: 4/16 MiB putmem/getmem (blocking, ctx_ nbi), zero-length and "
               "NULL transfers, unaligned offsets and odd lengths: OK on %d PEs\n",
               npes);
    shmem_finalize();
    return 0;
}
