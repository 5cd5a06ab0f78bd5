/* Quiet completes every put, injected ones included (ofi_order.c: with quiet_read
 * nothing tracks a small put but the read quiet sends to its target). Each PE
 * floods every other PE with small puts on the default context (64 B: injected;
 * 8 B shmem_long_p; a few bounce-sized and heap-sourced large ones), calls quiet,
 * then raises a flag at each target through a private context: an endpoint of its
 * own, so a connection of its own that nothing orders with the puts'. A target
 * that sees the flag must find all of the data at once. Should quiet return
 * before the puts are delivered, the flag overtakes the backlog on the busy
 * connection and the check below finds old data. */
#include <stdint.h>
#include <string.h>

#include "announce.h"
#include "check.h"

#define ROUNDS 8
#define SMALL 8192         /* 64-byte puts per PE and round, spread over the targets */
#define WORDS 8            /* longs per small put */
#define MEDIUM 2048        /* bytes of each bounce-sized put */
#define LARGE (256u << 10) /* bytes of the one heap-sourced put per target */

static long flag[64];   /* flag[src]: rounds src has completed towards this PE */
static long p_word[64]; /* p_word[src]: written by src with shmem_long_p */

/* What PE src writes here: per small puts at small + src * region bytes, and a
 * medium and a large put at medium + src * MEDIUM, large + src * LARGE. */
static long *small, per;
static size_t region;
static char *medium, *large;

static long expect(int src, int round, long i)
{
    return ((long)src << 40) + ((long)round << 32) + i;
}

/* The single-put rounds: PE src's one put of round r goes to single_target(src, r),
 * WORDS longs at single + src * WORDS. */
static long *single;
static int single_target(int src, int r)
{
    int npes = shmem_n_pes();
    return (src + 1 + r % (npes - 1)) % npes;
}

static void check_single(int src, int r, void *unused)
{
    (void)unused;
    if (single_target(src, r) != shmem_my_pe())
        return;
    for (long w = 0; w < WORDS; w++)
        if (single[(size_t)src * WORDS + w] != expect(src, r, w)) {
            fprintf(stderr,
                    "FAIL PE %d: single-put round %d: word %ld of PE %d's put is %#lx, "
                    "expected %#lx: shmem_quiet returned before its only put arrived\n",
                    shmem_my_pe(), r, w, src, (unsigned long)single[(size_t)src * WORDS + w],
                    (unsigned long)expect(src, r, w));
            shmem_global_exit(1);
        }
}

/* What PE src put into this PE before its quiet of round r. */
static void check_round(int src, int r, void *unused)
{
    (void)unused;
    const long *got = small + (size_t)src * (region / sizeof(long));
    for (long i = 0; i < per * WORDS; i++)
        if (got[i] != expect(src, r, i)) {
            fprintf(stderr,
                    "FAIL PE %d: round %d: word %ld of PE %d's small puts is %#lx, "
                    "expected %#lx: shmem_quiet returned before they arrived\n",
                    shmem_my_pe(), r, i, src, (unsigned long)got[i],
                    (unsigned long)expect(src, r, i));
            shmem_global_exit(1);
        }
    CHECK_EQ(p_word[src], expect(src, r, -1));
    for (size_t k = 0; k < MEDIUM; k++)
        CHECK_EQ((unsigned char)medium[(size_t)src * MEDIUM + k], (src * 5 + r + 1) & 0xff);
    for (size_t k = 0; k < LARGE; k += 4093)
        CHECK_EQ((unsigned char)large[(size_t)src * LARGE + k], (src * 3 + r + 7) & 0xff);
}

int main(void)
{
    int provided;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= 64);
    int targets = npes - 1;
    per = targets ? SMALL / targets : 0;
    region = (size_t)per * WORDS * sizeof(long);
    small = test_malloc(region * (size_t)npes);
    medium = test_malloc((size_t)MEDIUM * (size_t)npes);
    large = test_malloc((size_t)LARGE * (size_t)npes);
    char *large_src = test_malloc(LARGE);
    single = test_malloc((size_t)npes * WORDS * sizeof(long));
    shmem_ctx_t side;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &side), 0);
    long buf[WORDS];
    char mbuf[MEDIUM];
    shmem_barrier_all();

    for (int r = 0; r < ROUNDS; r++) {
        memset(mbuf, (me * 5 + r + 1) & 0xff, MEDIUM);
        memset(large_src, (me * 3 + r + 7) & 0xff, LARGE);
        /* Interleaved over the targets, so that every connection has a backlog. */
        for (long i = 0; i < per; i++)
            for (int d = 1; d < npes; d++) {
                int pe = (me + d) % npes;
                for (int w = 0; w < WORDS; w++)
                    buf[w] = expect(me, r, i * WORDS + w);
                shmem_putmem(small + (size_t)me * (region / sizeof(long)) + i * WORDS, buf,
                             sizeof buf, pe);
            }
        for (int d = 1; d < npes; d++) {
            int pe = (me + d) % npes;
            shmem_putmem_nbi(medium + (size_t)me * MEDIUM, mbuf, MEDIUM, pe);
            shmem_putmem_nbi(large + (size_t)me * LARGE, large_src, LARGE, pe);
            shmem_long_p(&p_word[me], expect(me, r, -1), pe);
        }
        announce_round(side, flag, r, check_round, NULL);
        /* Nobody writes round r+1 until every PE has checked round r. */
        shmem_barrier_all();
    }
    /* One small put to one PE between quiets: all that PE has unsettled, so quiet
     * sends it with delivery completion rather than settling it with a read
     * (ofi_bundle_flush_settled), and the flag must still find it landed. */
    for (int r = ROUNDS; r < 2 * ROUNDS && npes > 1; r++) {
        for (int w = 0; w < WORDS; w++)
            buf[w] = expect(me, r, w);
        shmem_putmem(single + (size_t)me * WORDS, buf, sizeof buf, single_target(me, r));
        announce_round(side, flag, r, check_single, NULL);
        shmem_barrier_all();
    }
    shmem_ctx_destroy(side);
    shmem_free(single);
    shmem_free(large_src);
    shmem_free(large);
    shmem_free(medium);
    shmem_free(small);
    if (me == 0)
        printf("test_ofi_quiet: %d rounds of %d small puts per PE and %d of one, flags on "
               "another endpoint, OK on %d PEs\n",
               ROUNDS, SMALL, ROUNDS, npes);
    shmem_finalize();
    return 0;
}
