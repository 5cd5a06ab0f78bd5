/* Every put/get protocol of the libfabric transport, to the right neighbour (on
 * another "node" under SHOAL_NODE_MAP=pe): inject, bounce and direct sizes, from
 * the stack, from malloc and from symmetric memory, blocking and nbi, plus a
 * batch session (FI_MORE) and local completion. Sizes straddle the default
 * thresholds: inject 64 B (tcp;ofi_rxm), bounce 64 KiB. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define BIG (1 << 20)
static const size_t sizes[] = {
    1, 8, 63, 64, 65, 1000, 4096, 65535, 65536, 65537, 300000, BIG
};

static unsigned char pattern(int pe, size_t i, int round)
{
    return (unsigned char)(pe * 31 + i * 7 + round * 13);
}

static void fill(unsigned char *b, size_t n, int pe, int round)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(pe, i, round);
}

static void expect(const unsigned char *b, size_t n, int pe, int round)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(pe, i, round)) {
            fprintf(stderr,
                    "PE %d: byte %zu of %zu from PE %d (round %d) is %u, expected %u\n", me,
                    i, n, pe, round, b[i], pattern(pe, i, round));
            CHECK(0);
        }
}

/* A put of n bytes from src to the right neighbour's dst, then quiet; the left
 * neighbour's put must be found here. */
static void put_one(unsigned char *dst, unsigned char *src, size_t n, int nbi, int round)
{
    fill(src, n, me, round);
    if (nbi) {
        shmem_putmem_nbi(dst, src, n, right);
        shmem_quiet();
    } else {
        shmem_putmem(dst, src, n, right);
        /* The source is ours again at once: scribbling must not reach the peer. */
        memset(src, 0xEE, n);
        shmem_quiet();
    }
    shmem_barrier_all();
    expect(dst, n, left, round);
    shmem_barrier_all();
}

/* A get of n bytes into dst from the right neighbour's src_sym. */
static void get_one(unsigned char *dst, unsigned char *src_sym, size_t n, int nbi, int round)
{
    fill(src_sym, n, me, round);
    shmem_barrier_all();
    memset(dst, 0, n);
    if (nbi) {
        shmem_getmem_nbi(dst, src_sym, n, right);
        shmem_quiet();
    } else {
        shmem_getmem(dst, src_sym, n, right);
    }
    expect(dst, n, right, round);
    shmem_barrier_all();
}

/* Every size, with this PE's side of the transfer in memory of the kind (0 the stack,
 * small sizes only; 1 malloc; 2 symmetric: local_sym): put from it into sym_remote
 * or, with get, get into it from sym_remote. */
static void rma_round(int get, unsigned char *sym_remote, unsigned char *local_sym, int kind,
                      int nbi, int round)
{
    unsigned char stack[4096];
    unsigned char *heap = malloc(BIG);
    CHECK(heap != NULL);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        if (kind == 0 && n > sizeof stack)
            continue;
        unsigned char *local = kind == 0 ? stack : kind == 1 ? heap : local_sym;
        if (get)
            get_one(local, sym_remote, n, nbi, round + (int)k);
        else
            put_one(sym_remote, local, n, nbi, round + (int)k);
    }
    free(heap);
}

/* Many small puts in a batch session: FI_MORE until the session stops. */
static void session_round(unsigned char *dst)
{
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    for (int i = 0; i < 1000; i++) {
        unsigned char v = pattern(me, (size_t)i, 99);
        shmem_ctx_putmem_nbi(ctx, dst + i, &v, 1, right);
    }
    shmem_ctx_session_stop(ctx);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    expect(dst, 1000, left, 99);
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
}

int main(void)
{
    ring_init();
    unsigned char *dst = test_malloc(BIG), *sym = test_malloc(BIG);
    int round = 0;
    for (int kind = 0; kind < 3; kind++)
        for (int nbi = 0; nbi < 2; nbi++) {
            rma_round(0, dst, sym, kind, nbi, round += 20);
            rma_round(1, sym, dst, kind, nbi, round += 20);
        }
    session_round(dst);
    shmem_free(sym);
    shmem_free(dst);
    if (me == 0)
        printf("test_ofi_rma: protocols (inject/bounce/direct x stack/malloc/symmetric x "
               "blocking/nbi) and batch session OK on %d PEs\n",
               npes);
    shmem_finalize();
    return 0;
}
