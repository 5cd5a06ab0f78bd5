/* Sized and byte-count RMA: shmem_[ctx_]putSIZE/getSIZE[_nbi], iputSIZE/igetSIZE
 * (strides 1..3 on both sides), ibputSIZE/ibgetSIZE (1.6, bsize > 1) for every SIZE of
 * SHMEM_RMA_SIZES, and shmem_[ctx_]putmem/getmem[_nbi], on the symmetric heap and on
 * global arrays. Byte j of source element i on PE p is pat(p, i*E + j), never 0;
 * every byte of every destination is checked, untouched ones must stay 0.
 * Each PE writes to (me+1)%n and reads from (me+n-1)%n, then one all-to-all round. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rma_ops.h"

/* Contiguous shapes: element offsets in dest and source, element count. The second
 * is unaligned for putmem/getmem (byte elements). */
struct shape {
    int doff, soff, n;
};
#define NSHAPE 2
static const struct shape shapes[NSHAPE] = { { 0, 0, LEN }, { 1, 2, LEN - 3 } };

enum {
    R_PUT = 0,                   /* + c*NSHAPE + shape */
    R_NBI = R_PUT + 2 * NSHAPE,  /* + c*NSHAPE + shape */
    R_IPUT = R_NBI + 2 * NSHAPE, /* + c*9 + combination */
    R_IBPUT = R_IPUT + 18,       /* + c*NBLK + block shape */
    NREG = R_IBPUT + 2 * NBLK
};
#define DLEN (NREG * RSZ)

struct sops {
    const char *name; /* "8", ..., "128", "mem" */
    size_t esize;     /* bytes per element */
    unsigned char *static_src, *static_dst;
    rma_contig_fn *put, *get, *put_nbi, *get_nbi;
    /* NULL for "mem", which has no strided or blocked form: */
    rma_strided_fn *iput, *iget;
    rma_blocked_fn *ibput, *ibget;
};

#define DEF_CONTIG(S)                                                                        \
    static void put_##S(int c, void *d, const void *s, size_t n, int pe)                     \
    {                                                                                        \
        CTXCALL(c, put##S, d, s, n, pe);                                                     \
    }                                                                                        \
    static void get_##S(int c, void *d, const void *s, size_t n, int pe)                     \
    {                                                                                        \
        CTXCALL(c, get##S, d, s, n, pe);                                                     \
    }                                                                                        \
    static void put_nbi_##S(int c, void *d, const void *s, size_t n, int pe)                 \
    {                                                                                        \
        CTXCALL(c, put##S##_nbi, d, s, n, pe);                                               \
    }                                                                                        \
    static void get_nbi_##S(int c, void *d, const void *s, size_t n, int pe)                 \
    {                                                                                        \
        CTXCALL(c, get##S##_nbi, d, s, n, pe);                                               \
    }

#define DEF_SIZE(S)                                                                          \
    static _Alignas(16) unsigned char static_src_##S[RSZ * ((S) / 8)];                       \
    static _Alignas(16) unsigned char static_dst_##S[DLEN * ((S) / 8)];                      \
    DEF_CONTIG(S)                                                                            \
    static void iput_##S(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,        \
                         size_t n, int pe)                                                   \
    {                                                                                        \
        CTXCALL(c, iput##S, d, s, dst, sst, n, pe);                                          \
    }                                                                                        \
    static void iget_##S(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,        \
                         size_t n, int pe)                                                   \
    {                                                                                        \
        CTXCALL(c, iget##S, d, s, dst, sst, n, pe);                                          \
    }                                                                                        \
    static void ibput_##S(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t b, size_t nb, int pe)                                       \
    {                                                                                        \
        CTXCALL(c, ibput##S, d, s, dst, sst, b, nb, pe);                                     \
    }                                                                                        \
    static void ibget_##S(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t b, size_t nb, int pe)                                       \
    {                                                                                        \
        CTXCALL(c, ibget##S, d, s, dst, sst, b, nb, pe);                                     \
    }

SHMEM_RMA_SIZES(DEF_SIZE)
DEF_CONTIG(mem)
static unsigned char static_src_mem[RSZ], static_dst_mem[DLEN];

#define LIST_SIZE(S)                                                                         \
    { #S,          (S) / 8,     static_src_##S, static_dst_##S, put_##S,   get_##S,          \
      put_nbi_##S, get_nbi_##S, iput_##S,       iget_##S,       ibput_##S, ibget_##S },
static const struct sops all_sizes[] = {
    SHMEM_RMA_SIZES(LIST_SIZE){ "mem", 1, static_src_mem, static_dst_mem, put_mem, get_mem,
                                put_nbi_mem, get_nbi_mem, NULL, NULL, NULL, NULL },
};
#define NSIZES (sizeof all_sizes / sizeof all_sizes[0])

/* Byte `off` of PE pe's source (kind salt k): never 0, differs between neighbours. */
static unsigned char pat(int pe, size_t off, int k)
{
    unsigned v = (unsigned)(pe * 61 + (int)off * 13 + (int)(off >> 8) * 7 + k * 101);
    return (unsigned char)(1 + v % 255);
}

/* map[d] = source element that lands at destination element d, or -1 (untouched). */
static void map_blocks(int *map, int ts, int ss, int bs, int nb, int doff, int soff)
{
    for (int i = 0; i < RSZ; i++)
        map[i] = -1;
    for (int k = 0; k < nb; k++)
        for (int j = 0; j < bs; j++)
            map[doff + k * ts + j] = soff + k * ss + j;
}

static void check_region(const struct sops *t, const unsigned char *buf, const int *map,
                         int count, int from, int k, int c, const char *what, int a, int b)
{
    size_t E = t->esize;
    for (int d = 0; d < count; d++)
        for (size_t j = 0; j < E; j++) {
            unsigned char want = map[d] < 0 ? 0 : pat(from, (size_t)map[d] * E + j, k);
            unsigned char got = buf[(size_t)d * E + j];
            if (got != want)
                fprintf(stderr,
                        "PE %d: %s shmem_%s%s (SIZE %s) (%d,%d) element %d byte %zu: "
                        "got 0x%02x, expected 0x%02x (from PE %d)\n",
                        me, kind_name[k], ctx_name[c], what, t->name, a, b, d, j, got, want,
                        from);
            CHECK_EQ(got, want);
        }
}

static void run_size(const struct sops *t, int kind)
{
    const size_t E = t->esize;
    int map[RSZ];
    unsigned char *src, *dst;

    if (kind == HEAP) {
        src = test_malloc(RSZ * E);
        dst = test_malloc(DLEN * E);
    } else {
        src = t->static_src;
        dst = t->static_dst;
    }
    unsigned char *loc = malloc(DLEN * E);
    CHECK(loc != NULL);

    /* ---- Phase 1: write right, read left. ---- */
    for (size_t i = 0; i < RSZ * E; i++)
        src[i] = pat(me, i, kind);
    memset(dst, 0, DLEN * E);
    shmem_barrier_all();

#define REG(r) (dst + (size_t)(r)*RSZ * E)
    for (int c = 0; c < 2; c++) {
        for (int s = 0; s < NSHAPE; s++) {
            const struct shape *sh = &shapes[s];
            t->put(c, REG(R_PUT + c * NSHAPE + s) + sh->doff * E, src + sh->soff * E,
                   (size_t)sh->n, right);
            t->put_nbi(c, REG(R_NBI + c * NSHAPE + s) + sh->doff * E, src + sh->soff * E,
                       (size_t)sh->n, right);
        }
        quiet(c);
        if (t->iput) {
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    t->iput(c, REG(R_IPUT + c * 9 + a * 3 + b), src, strides[a], strides[b],
                            LEN, right);
            for (int k = 0; k < NBLK; k++)
                t->ibput(c, REG(R_IBPUT + c * NBLK + k), src, blocks[k].dst, blocks[k].sst,
                         (size_t)blocks[k].bsize, (size_t)blocks[k].nblocks, right);
        }
    }

    for (int c = 0; c < 2; c++) {
        for (int s = 0; s < NSHAPE; s++) {
            const struct shape *sh = &shapes[s];
            map_blocks(map, 1, 1, sh->n, 1, sh->doff, sh->soff);
            memset(loc, 0, RSZ * E);
            t->get(c, loc + sh->doff * E, src + sh->soff * E, (size_t)sh->n, left);
            check_region(t, loc, map, RSZ, left, kind, c, "get", sh->doff, sh->soff);
            memset(loc, 0, RSZ * E);
            t->get_nbi(c, loc + sh->doff * E, src + sh->soff * E, (size_t)sh->n, left);
            quiet(c);
            check_region(t, loc, map, RSZ, left, kind, c, "get_nbi", sh->doff, sh->soff);
        }
        if (!t->iget)
            continue;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                map_blocks(map, strides[a], strides[b], 1, LEN, 0, 0);
                memset(loc, 0, RSZ * E);
                t->iget(c, loc, src, strides[a], strides[b], LEN, left);
                check_region(t, loc, map, RSZ, left, kind, c, "iget", strides[a], strides[b]);
            }
        for (int k = 0; k < NBLK; k++) {
            const struct blk *bl = &blocks[k];
            map_blocks(map, bl->dst, bl->sst, bl->bsize, bl->nblocks, 0, 0);
            memset(loc, 0, RSZ * E);
            t->ibget(c, loc, src, bl->dst, bl->sst, (size_t)bl->bsize, (size_t)bl->nblocks,
                     left);
            check_region(t, loc, map, RSZ, left, kind, c, "ibget", bl->dst, bl->sst);
        }
    }
    shmem_barrier_all();

    for (int c = 0; c < 2; c++) {
        for (int s = 0; s < NSHAPE; s++) {
            const struct shape *sh = &shapes[s];
            map_blocks(map, 1, 1, sh->n, 1, sh->doff, sh->soff);
            check_region(t, REG(R_PUT + c * NSHAPE + s), map, RSZ, left, kind, c, "put",
                         sh->doff, sh->soff);
            check_region(t, REG(R_NBI + c * NSHAPE + s), map, RSZ, left, kind, c, "put_nbi",
                         sh->doff, sh->soff);
        }
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                if (t->iput)
                    map_blocks(map, strides[a], strides[b], 1, LEN, 0, 0);
                else
                    map_blocks(map, 1, 1, 0, 0, 0, 0);
                check_region(t, REG(R_IPUT + c * 9 + a * 3 + b), map, RSZ, left, kind, c,
                             "iput", strides[a], strides[b]);
            }
        for (int k = 0; k < NBLK; k++) {
            const struct blk *bl = &blocks[k];
            if (t->ibput)
                map_blocks(map, bl->dst, bl->sst, bl->bsize, bl->nblocks, 0, 0);
            else
                map_blocks(map, 1, 1, 0, 0, 0, 0);
            check_region(t, REG(R_IBPUT + c * NBLK + k), map, RSZ, left, kind, c, "ibput",
                         bl->dst, bl->sst);
        }
    }
#undef REG

    /* ---- Phase 2: all-to-all; PE me's kk elements land at slot me everywhere. ---- */
    int kk = DLEN / npes < LEN ? DLEN / npes : LEN;
    CHECK(kk > 0);
    memset(dst, 0, DLEN * E);
    shmem_barrier_all();
    put_to_all(t->put, t->put_nbi, dst, src, E, kk);
    for (int q = 0; q < npes; q++) {
        int pe = (me + npes - q) % npes;
        map_blocks(map, 1, 1, kk, 1, 0, 0);
        memset(loc, 0, RSZ * E);
        t->get(q % 2, loc, src, (size_t)kk, pe);
        check_region(t, loc, map, RSZ, pe, kind, q % 2, "get(all-to-all)", pe, 0);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        map_blocks(map, 1, 1, kk, 1, 0, 0);
        check_region(t, dst + (size_t)pe * kk * E, map, kk, pe, kind, 0, "put(all-to-all)",
                     pe, 0);
    }
    for (size_t i = (size_t)npes * kk * E; i < DLEN * E; i++)
        CHECK_EQ(dst[i], 0);

    free(loc);
    if (kind == HEAP) {
        shmem_free(dst);
        shmem_free(src);
    }
}

int main(void)
{
    ring_init();

    for (size_t k = 0; k < NSIZES; k++) {
        run_size(&all_sizes[k], HEAP);
        run_size(&all_sizes[k], STATIC);
    }

    shmem_barrier_all();
    if (me == 0)
        printf("test_rma_sized: put/get/iput/iget/ibput/ibget{8,16,32,64,128} and "
               "putmem/getmem, blocking and _nbi, default and ctx_, heap and static: "
               "OK on %d PEs\n",
               npes);
    shmem_finalize();
    return 0;
}
