/* Small puts outside sessions coalesce into bundles (ofi_bundle.c): one message per
 * run of puts to a PE. Every way a bundled put must still land is checked here,
 * each against values the target computes itself:
 *   quiet    put_nbi to adjacent words (from sources left alone until quiet),
 *            shmem_long_p to scattered words with the targets interleaved,
 *            blocking shmem_putmem from one buffer rewritten after every call,
 *            100 puts of each kind to one word (the last must win), and puts of
 *            24, 1500 and 3000 bytes (the last too large to bundle); then quiet,
 *            then a flag through a private context, whose endpoint nothing orders
 *            with the puts';
 *   barrier  puts, then shmem_barrier_all;
 *   fence    puts, shmem_fence, a flag put; and puts then shmem_putmem_signal;
 *   compute  (argument "compute") PE 0 puts a flag to every PE and then computes
 *            without calling Shoal until every peer has put an answer back: the
 *            progress thread must send the bundle (no timing limit but a cap). */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "announce.h"
#include "check.h"

#define ROUNDS 6
#define NBI 200            /* adjacent 8-byte put_nbi per target */
#define SCAT 100           /* shmem_long_p per target, every other word */
#define BLK 64             /* blocking 8-byte shmem_putmem per target */
#define SAME 100           /* puts to one word, each kind */
#define MED 1500           /* bundled */
#define BIG 3000           /* more than half SHMEM_OFI_BUNDLE_SIZE: not bundled */
#define SMALLB 24          /* bundled, not a multiple of 16 */
#define COMPUTE_CAP_S 60.0 /* only a failing run waits this long */

/* What src writes to kind k, element i, in round r. */
static long val(int src, int r, int k, long i)
{
    return ((long)src << 48) + ((long)r << 40) + ((long)k << 32) + i;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long flag[64], fence_flag[64], dflag, acks[64];
static uint64_t sig[64];

/* Per source PE on each target: everything one round writes. */
struct region {
    long nbi[NBI];
    long scat[2 * SCAT];
    long blk[BLK];
    long same_p, same_put;
    unsigned char small[SMALLB], med[MED], big[BIG];
    long bar[16], fen[16], pws[16];
};

static void fill(unsigned char *b, size_t n, int src, int r, int k)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(src * 31 + r * 7 + k * 3 + i);
}

static void check_bytes(const unsigned char *b, size_t n, int src, int r, int k,
                        const char *what)
{
    unsigned char e[BIG];
    fill(e, n, src, r, k);
    for (size_t i = 0; i < n; i++)
        if (b[i] != e[i]) {
            fprintf(stderr,
                    "FAIL PE %d: round %d: byte %zu of PE %d's %s put is %d, "
                    "expected %d\n",
                    shmem_my_pe(), r, i, src, what, b[i], e[i]);
            shmem_global_exit(1);
        }
}

static void check_longs(const long *got, long n, long stride, int src, int r, int k,
                        const char *what)
{
    for (long i = 0; i < n; i++)
        if (got[i * stride] != val(src, r, k, i)) {
            fprintf(stderr,
                    "FAIL PE %d: round %d: element %ld of PE %d's %s is %#lx, expected "
                    "%#lx\n",
                    shmem_my_pe(), r, i, src, what, (unsigned long)got[i * stride],
                    (unsigned long)val(src, r, k, i));
            shmem_global_exit(1);
        }
}

/* What PE src put into this PE (reg, indexed by source) before its quiet of round r. */
static void check_quiet_round(int src, int r, void *reg)
{
    const struct region *g = &((const struct region *)reg)[src];
    check_longs(g->nbi, NBI, 1, src, r, 0, "put_nbi");
    check_longs(g->scat, SCAT, 2, src, r, 1, "shmem_long_p");
    check_longs(g->blk, BLK, 1, src, r, 2, "blocking putmem");
    CHECK_EQ(g->same_p, val(src, r, 3, SAME - 1));
    CHECK_EQ(g->same_put, val(src, r, 4, SAME - 1));
    check_bytes(g->small, SMALLB, src, r, 5, "24-byte");
    check_bytes(g->med, MED, src, r, 6, "1500-byte");
    check_bytes(g->big, BIG, src, r, 7, "3000-byte");
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int compute = argc > 1 && strcmp(argv[1], "compute") == 0;
    CHECK(npes <= 64);
    struct region *reg = test_malloc(sizeof *reg * (size_t)npes);
    struct region *mine = &reg[me]; /* this PE's slot at every target */
    shmem_ctx_t side;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &side), 0);
    static long nbi_src[64][NBI]; /* put_nbi sources: untouched until quiet */
    unsigned char small[SMALLB], med[MED], big[BIG];
    long one;
    shmem_barrier_all();

    for (int r = 0; r < ROUNDS; r++) {
        fill(small, SMALLB, me, r, 5);
        fill(med, MED, me, r, 6);
        fill(big, BIG, me, r, 7);
        /* quiet: a run of adjacent put_nbi per target (one bundle each) ... */
        for (int d = 1; d < npes; d++) {
            int pe = (me + d) % npes;
            for (long i = 0; i < NBI; i++) {
                nbi_src[pe][i] = val(me, r, 0, i);
                shmem_putmem_nbi(&mine->nbi[i], &nbi_src[pe][i], sizeof(long), pe);
            }
        }
        /* ... scattered p with the targets interleaved (a bundle per put) ... */
        for (long i = 0; i < SCAT; i++)
            for (int d = 1; d < npes; d++)
                shmem_long_p(&mine->scat[2 * i], val(me, r, 1, i), (me + d) % npes);
        for (int d = 1; d < npes; d++) {
            int pe = (me + d) % npes;
            /* ... blocking puts from a buffer rewritten as soon as each returns ... */
            for (long i = 0; i < BLK; i++) {
                one = val(me, r, 2, i);
                shmem_putmem(&mine->blk[i], &one, sizeof one, pe);
                one = -1;
            }
            /* ... one word written again and again: the last put wins ... */
            for (long i = 0; i < SAME; i++)
                shmem_long_p(&mine->same_p, val(me, r, 3, i), pe);
            for (long i = 0; i < SAME; i++) {
                one = val(me, r, 4, i);
                shmem_putmem(&mine->same_put, &one, sizeof one, pe);
                one = -1;
            }
            /* ... and sizes around the bundle limit. */
            shmem_putmem_nbi(mine->small, small, SMALLB, pe);
            shmem_putmem(mine->med, med, MED, pe);
            shmem_putmem(mine->big, big, BIG, pe);
        }
        announce_round(side, flag, r, check_quiet_round, reg);

        /* barrier: puts, then the barrier alone. */
        for (int d = 1; d < npes; d++)
            for (long i = 0; i < 16; i++)
                shmem_long_p(&mine->bar[i], val(me, r, 8, i), (me + d) % npes);
        shmem_barrier_all();
        for (int d = 1; d < npes; d++)
            check_longs(reg[(me + npes - d) % npes].bar, 16, 1, (me + npes - d) % npes, r, 8,
                        "put before a barrier");

        /* fence: puts, fence, a flag; puts, then put-with-signal. */
        for (int d = 1; d < npes; d++) {
            int pe = (me + d) % npes;
            for (long i = 0; i < 16; i++)
                shmem_long_p(&mine->fen[i], val(me, r, 9, i), pe);
            shmem_fence();
            shmem_long_p(&fence_flag[me], r + 1, pe);
            for (long i = 0; i < 15; i++)
                shmem_long_p(&mine->pws[i], val(me, r, 10, i), pe);
            one = val(me, r, 10, 15);
            shmem_putmem_signal(&mine->pws[15], &one, sizeof one, &sig[me], (uint64_t)r + 1,
                                SHMEM_SIGNAL_SET, pe);
        }
        for (int d = 1; d < npes; d++) {
            int src = (me + npes - d) % npes;
            shmem_long_wait_until(&fence_flag[src], SHMEM_CMP_GE, r + 1);
            check_longs(reg[src].fen, 16, 1, src, r, 9, "put before a fence");
            shmem_signal_wait_until(&sig[src], SHMEM_CMP_GE, (uint64_t)r + 1);
            /* Puts before the put-with-signal are not ordered with its signal;
             * the payload is. The rest is checked after the barrier. */
            CHECK_EQ(reg[src].pws[15], val(src, r, 10, 15));
        }
        shmem_barrier_all();
        for (int d = 1; d < npes; d++)
            check_longs(reg[(me + npes - d) % npes].pws, 16, 1, (me + npes - d) % npes, r, 10,
                        "put before put-with-signal");
        /* Nobody writes round r+1 until every PE has checked round r. */
        shmem_barrier_all();
    }

    if (compute) {
        if (me == 0) {
            for (int pe = 1; pe < npes; pe++)
                shmem_long_p(&dflag, 1, pe);
            /* No Shoal call until every peer has answered (reading our own memory is
             * not one): only the progress thread can send the bundle and take the
             * answers in. Held, the flags would arrive only after the cap. */
            double t0 = now();
            int missing = npes - 1;
            while (missing > 0 && now() - t0 < COMPUTE_CAP_S) {
                missing = 0;
                for (int pe = 1; pe < npes; pe++)
                    missing += __atomic_load_n(&acks[pe], __ATOMIC_ACQUIRE) != 1;
            }
            if (missing > 0) {
                fprintf(stderr,
                        "FAIL PE 0: %d of %d peers had not seen a shmem_long_p from PE 0 "
                        "after %.0f s while PE 0 computed outside Shoal: the bundle was "
                        "held\n",
                        missing, npes - 1, COMPUTE_CAP_S);
                shmem_global_exit(1);
            }
        } else {
            shmem_long_wait_until(&dflag, SHMEM_CMP_EQ, 1);
            shmem_long_p(&acks[me], 1, 0);
            shmem_quiet();
        }
        shmem_barrier_all();
    }
    shmem_ctx_destroy(side);
    shmem_free(reg);
    if (me == 0)
        printf("test_ofi_bundle%s: %d rounds of bundled puts then quiet, barrier, fence, "
               "put-with-signal OK on %d PEs\n",
               compute ? " (compute)" : "", ROUNDS, npes);
    shmem_finalize();
    return 0;
}
