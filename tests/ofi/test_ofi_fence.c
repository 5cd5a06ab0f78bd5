/* shmem_fence orders puts and AMOs to the same PE, and over tcp;ofi_rxm (where
 * quiet reads puts back, ofi_order.c) a put or AMO after a fence waits only for
 * the earlier puts to its own target. Every PE, round after round:
 *   pattern  to each other PE x in turn: a payload, fence, a flag (a put, an
 *            atomic set or an atomic add, by round; on the default context or a
 *            context of its own); x waits for the flag and checks every byte;
 *   epochs   a payload to every other PE, fence, a second payload over the first
 *            half of each, fence, an atomic set or swap_nbi, fence and a put of
 *            one word to each and to itself, fence, then a flag to each: the
 *            first half must hold the second payload, the second half the
 *            first, the word the put's value;
 * with payloads of 8 B (bundled), 200 B, 4 KiB, 64 KiB (bounce) and 100000 B
 * (direct), from private memory or, every other round, from the symmetric heap.
 *
 * "trace" (run with SHOAL_LOG=ofi:trace): PE 0 puts 64 KiB to every other PE,
 * fences, puts twice to PE 1, fences, puts to PE 2, between two lines
 * "fence check: begin/end" on stderr; fence_trace.sh checks that only PE 1 and
 * then PE 2 were settled there, each once. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 6
#define MAXSIZE 100000
static const size_t sizes[] = { 8, 200, 4096, 65536, 100000 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

static unsigned char pattern(int src, int dst, long round, int salt, size_t i)
{
    return (unsigned char)(src * 31 + dst * 7 + round * 13 + salt * 101 + (long)(i % 251));
}

static void fill(unsigned char *buf, int src, int dst, long round, int salt, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(src, dst, round, salt, i);
}

static int check(const unsigned char *buf, size_t from, size_t to, int src, int dst,
                 long round, int salt, const char *what, size_t size)
{
    for (size_t i = from; i < to; i++)
        if (buf[i] != pattern(src, dst, round, salt, i)) {
            fprintf(stderr,
                    "FAIL PE %d: %s: byte %zu of the %zu-byte payload from PE %d in round "
                    "%ld is %u, expected %u (it landed after the flag behind a fence)\n",
                    dst, what, i, size, src, round, buf[i],
                    pattern(src, dst, round, salt, i));
            return 1;
        }
    return 0;
}

static int trace(int me, int n)
{
    static long flag[2];
    size_t len = 65536;
    unsigned char *dst = shmem_malloc(len);
    unsigned char *src = malloc(len);
    if (!dst || !src)
        return 1;
    memset(src, 0x5a, len);
    shmem_barrier_all();
    if (me == 0) {
        shmem_quiet(); /* nothing in flight, the barrier's AMOs included */
        fprintf(stderr, "fence check: begin\n");
        for (int x = 1; x < n; x++)
            shmem_putmem(dst, src, len, x);
        shmem_fence();
        shmem_long_p(&flag[0], 1, 1); /* settles PE 1 only */
        shmem_long_p(&flag[1], 1, 1); /* nothing more */
        shmem_fence();
        if (n > 2)
            shmem_long_p(&flag[0], 1, 2); /* owes the first fence: PE 2 */
        fprintf(stderr, "fence check: end\n");
        shmem_quiet();
    }
    shmem_barrier_all();
    int bad = 0;
    if (me > 0)
        for (size_t i = 0; i < len && !bad; i++)
            if (dst[i] != 0x5a) {
                fprintf(stderr, "FAIL PE %d: byte %zu of PE 0's put is %u\n", me, i, dst[i]);
                bad = 1;
            }
    shmem_free(dst);
    free(src);
    return bad;
}

/* Sets *flag on pe to value (one more than it holds) the way round r says. */
static void raise_flag(shmem_ctx_t ctx, long *flag, long value, int pe, long r)
{
    switch (r % 3) {
    case 0: shmem_ctx_long_p(ctx, flag, value, pe); break;
    case 1: shmem_ctx_long_atomic_set(ctx, flag, value, pe); break;
    default: shmem_ctx_long_atomic_add(ctx, flag, 1, pe); break;
    }
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (argc > 1 && !strcmp(argv[1], "trace")) {
        int bad = trace(me, n);
        shmem_finalize();
        return bad;
    }
    /* Per sender: a payload area of each phase and a flag of each. Sources: two
     * per target (put_nbi's source stays the caller's until quiet), private and
     * symmetric. */
    size_t area = (size_t)MAXSIZE * (size_t)n;
    unsigned char *pat = shmem_malloc(area), *epo = shmem_malloc(area);
    unsigned char *sym = shmem_malloc(2 * area), *priv = malloc(2 * area);
    long *flag_pat = shmem_calloc((size_t)n, sizeof(long));
    long *flag_epo = shmem_calloc((size_t)n, sizeof(long));
    long *word = shmem_calloc((size_t)n, sizeof(long));
    long *fetched = malloc((size_t)n * sizeof(long));
    shmem_ctx_t own;
    if (!pat || !epo || !sym || !priv || !flag_pat || !flag_epo || !word || !fetched ||
        shmem_ctx_create(0, &own)) {
        fprintf(stderr, "FAIL PE %d: setup\n", me);
        shmem_global_exit(1);
    }
    int bad = 0;
    long r = 0; /* rounds so far: each flag is raised once per round */
    for (size_t z = 0; z < NSIZES; z++) {
        size_t size = sizes[z], half = size / 2;
        for (int rep = 0; rep < ROUNDS; rep++, r++) {
            unsigned char *src = (r % 2) ? sym : priv;
            shmem_ctx_t ctx = (r % 4 == 3) ? own : SHMEM_CTX_DEFAULT;
            /* Payloads, salted by phase: 0 the pattern (payload, fence, flag to each
             * x), 1 the first epoch, 2 the second over the first half of it (from the
             * other source of x: the first one's put_nbi may still read its own). */
            for (int salt = 0; salt < 3; salt++) {
                size_t len = salt == 2 ? half : size;
                unsigned char *to = (salt ? epo : pat) + (size_t)me * MAXSIZE;
                for (int k = 1; k < n; k++) {
                    int x = (me + k) % n;
                    unsigned char *s = src + (2 * (size_t)x + (salt == 2)) * MAXSIZE;
                    fill(s, me, x, r, salt, len);
                    if (salt) {
                        shmem_ctx_putmem_nbi(ctx, to, s, len, x);
                    } else {
                        shmem_ctx_putmem(ctx, to, s, len, x);
                        shmem_ctx_fence(ctx);
                        raise_flag(ctx, &flag_pat[me], r + 1, x, r);
                    }
                }
                if (salt)
                    shmem_ctx_fence(ctx);
            }
            /* An AMO, fence, a put to the same word: over tcp;ofi_rxm the AMO is a
             * message the target's rxm applies when it gets to it, and the put an
             * RMA write applied on arrival, so only the fence keeps them in order.
             * After a quiet no target has puts to settle: the fence must wait for
             * the AMO itself. This PE too: the put to itself is a store. */
            shmem_ctx_quiet(ctx);
            for (int k = 0; k < n; k++) {
                int x = (me + k) % n;
                /* A blocking AMO to itself completes before it returns; swap_nbi not. */
                if (r % 2)
                    shmem_ctx_long_atomic_swap_nbi(ctx, &fetched[x], &word[me], -r - 1, x);
                else
                    shmem_ctx_long_atomic_set(ctx, &word[me], -r - 1, x);
                shmem_ctx_fence(ctx);
                shmem_ctx_long_p(ctx, &word[me], r + 1, x);
            }
            shmem_ctx_fence(ctx);
            for (int k = 1; k < n; k++)
                raise_flag(ctx, &flag_epo[me], r + 1, (me + k) % n, r + 1);
            /* Every other PE's payloads and word, then (k == n) this PE's own word. */
            for (int k = 1; k <= n; k++) {
                int s = (me + n - k) % n;
                if (k < n) {
                    shmem_long_wait_until(&flag_pat[s], SHMEM_CMP_GE, r + 1);
                    bad |= check(pat + (size_t)s * MAXSIZE, 0, size, s, me, r, 0, "pattern",
                                 size);
                    shmem_long_wait_until(&flag_epo[s], SHMEM_CMP_GE, r + 1);
                    const unsigned char *e = epo + (size_t)s * MAXSIZE;
                    bad |= check(e, 0, half, s, me, r, 2, "second epoch", size);
                    bad |= check(e, half, size, s, me, r, 1, "first epoch", size);
                }
                if (word[s] != r + 1) {
                    fprintf(stderr,
                            "FAIL PE %d: the word PE %d set by an AMO, then by a put after a "
                            "fence, is %ld in round %ld, expected %ld\n",
                            me, s, word[s], r, r + 1);
                    bad = 1;
                }
            }
            /* Sources are reused, and payload areas overwritten, next round. */
            shmem_ctx_quiet(own);
            shmem_barrier_all();
            if (bad)
                shmem_global_exit(1);
        }
    }
    shmem_ctx_destroy(own);
    free(fetched);
    free(priv);
    if (me == 0)
        printf("test_ofi_fence: %ld rounds of payload, fence, flag to each of %d PEs: OK on "
               "%d PEs\n",
               r, n - 1, n);
    shmem_finalize();
    return 0;
}
