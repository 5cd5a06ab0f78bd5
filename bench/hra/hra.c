/* HRA random-access suite (seed 001, section V-B). Each PE owns a table of `size`
 * 8-byte elements and performs `n-updates` updates, each to a random PE and a random
 * element, with one kind of operation per pass:
 *   put, put_nbi_sym / put_nbi_lheap / put_nbi_lstack (source in symmetric memory, the
 *   private heap or the stack), put_fence_add (put + fence + atomic add on a counter),
 *   put_signal (1.5: put with a signal ADD on that counter), amo_add, amo_fetch_add,
 *   amo_set, amo_swap, amo_cswap.
 * With Shoal's shmemx.h (the Cray OpenSHMEMX extensions, seed 001 Figs. 16-18) also:
 *   put_nbi_session (a bundling session around the pass), put_signal_session (a
 *   SHMEM_SESSION_OP_PWS session), amo_add/amo_fetch_add/amo_set_single_transmit
 *   (a SHMEM_SESSION_UNRELIABLE|OP_AMO session), signal_set (shmemx_signal_set).
 * Every PE's update stream comes from a seeded generator, so after each pass a PE
 * replays all streams and recomputes what its own table must hold: sums for add kinds,
 * a value fixed by the element's position for the write kinds (whoever writes last
 * writes the same value), hit counts for the signal counter. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<shmemx.h>)
#include <shmemx.h>
#endif
#endif
#if defined(SHMEM_SESSION_UNRELIABLE) && defined(SHMEM_SESSION_OP_PWS) && BENCH_HAVE_SPEC_1_5
#define HRA_EXT 1
#else
#define HRA_EXT 0
#endif

enum kind {
    PUT,
    PUT_NBI_SYM,
    PUT_NBI_LHEAP,
    PUT_NBI_LSTACK,
    PUT_FENCE_ADD,
#if BENCH_HAVE_SPEC_1_5
    PUT_SIGNAL,
#endif
    AMO_ADD,
    AMO_FETCH_ADD,
    AMO_SET,
    AMO_SWAP,
    AMO_CSWAP,
#if HRA_EXT
    PUT_NBI_SESSION,
    PUT_SIGNAL_SESSION,
    AMO_ADD_ST,
    AMO_FETCH_ADD_ST,
    AMO_SET_ST,
    SIGNAL_SET,
#endif
    KINDS
};
static const char *const kind_names[KINDS] = {
    "put",
    "put_nbi_sym",
    "put_nbi_lheap",
    "put_nbi_lstack",
    "put_fence_add",
#if BENCH_HAVE_SPEC_1_5
    "put_signal",
#endif
    "amo_add",
    "amo_fetch_add",
    "amo_set",
    "amo_swap",
    "amo_cswap",
#if HRA_EXT
    "put_nbi_session",
    "put_signal_session",
    "amo_add_single_transmit",
    "amo_fetch_add_single_transmit",
    "amo_set_single_transmit",
    "signal_set",
#endif
};

#define WINDOW 64 /* non-blocking puts in flight before a quiet frees their sources */

struct hra {
    size_t size;  /* table elements per PE */
    long updates; /* updates per PE */
    uint64_t seed;
    unsigned long *table; /* symmetric */
    unsigned long *sym_src;
    uint64_t *counter; /* symmetric: signal/counter target of put_fence_add, put_signal */
    long bad_fetches;  /* fetched values a swap/cswap could not have returned */
};

struct update {
    int pe;
    size_t idx;
    unsigned long add;
};

static uint64_t stream_seed(const struct hra *h, int pe)
{
    return h->seed * 0x100000001b3ull + (uint64_t)pe * 0x9e3779b97f4a7c15ull;
}

static struct update next_update(uint64_t *state, const struct hra *h, int npes)
{
    uint64_t r = bench_rand(state);
    struct update u = { (int)((r >> 40) % (uint64_t)npes), (size_t)(r % h->size),
                        (r >> 8) | 1 };
    return u;
}

/* The value write kinds store into element `idx` of PE `pe`: the same from every writer. */
static unsigned long cell_value(int pe, size_t idx)
{
    uint64_t s = ((uint64_t)pe << 40) ^ idx;
    return bench_rand(&s) | 1;
}

static int is_add_kind(enum kind k)
{
#if HRA_EXT
    if (k == AMO_ADD_ST || k == AMO_FETCH_ADD_ST)
        return 1;
#endif
    return k == AMO_ADD || k == AMO_FETCH_ADD;
}

static int is_signal_kind(enum kind k)
{
#if HRA_EXT
    if (k == PUT_SIGNAL_SESSION)
        return 1;
#endif
#if BENCH_HAVE_SPEC_1_5
    if (k == PUT_SIGNAL)
        return 1;
#endif
    return k == PUT_FENCE_ADD;
}

/* The session a kind runs in, 0 for none. */
static long session_of(enum kind k)
{
#if HRA_EXT
    switch (k) {
    case PUT_NBI_SESSION: return SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PUT;
    case PUT_SIGNAL_SESSION: return SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PWS;
    case AMO_ADD_ST:
    case AMO_FETCH_ADD_ST:
    case AMO_SET_ST: return SHMEM_SESSION_UNRELIABLE | SHMEM_SESSION_OP_AMO;
    default: break;
    }
#endif
    (void)k;
    return 0;
}

static void check_fetched(struct hra *h, unsigned long old, int pe, size_t idx)
{
    if (old != 0 && old != cell_value(pe, idx))
        h->bad_fetches++;
}

static void run_pass(struct hra *h, enum kind k)
{
    int npes = shmem_n_pes();
    uint64_t state = stream_seed(h, shmem_my_pe());
    unsigned long stack_src[WINDOW];
    unsigned long *heap_src = malloc(sizeof(unsigned long) * WINDOW);
    if (!heap_src)
        shmem_global_exit(1);
    long session = session_of(k);
#if HRA_EXT
    if (session)
        shmemx_ctx_session_start(SHMEM_CTX_DEFAULT, session);
#endif
    for (long j = 0; j < h->updates; j++) {
        struct update u = next_update(&state, h, npes);
        unsigned long *dst = &h->table[u.idx];
        unsigned long v = cell_value(u.pe, u.idx);
        int slot = (int)(j % WINDOW);
        int nbi = k == PUT_NBI_SYM || k == PUT_NBI_LHEAP || k == PUT_NBI_LSTACK;
#if HRA_EXT
        nbi |= k == PUT_NBI_SESSION;
#endif
        if (slot == 0 && j > 0 && nbi)
            shmem_quiet(); /* the sources of the last window may be reused from here */
        switch (k) {
        case PUT: shmem_putmem(dst, &v, sizeof v, u.pe); break;
        case PUT_NBI_SYM:
            h->sym_src[slot] = v;
            shmem_putmem_nbi(dst, &h->sym_src[slot], sizeof v, u.pe);
            break;
        case PUT_NBI_LHEAP:
            heap_src[slot] = v;
            shmem_putmem_nbi(dst, &heap_src[slot], sizeof v, u.pe);
            break;
        case PUT_NBI_LSTACK:
            stack_src[slot] = v;
            shmem_putmem_nbi(dst, &stack_src[slot], sizeof v, u.pe);
            break;
        case PUT_FENCE_ADD:
            shmem_putmem(dst, &v, sizeof v, u.pe);
            shmem_fence();
            shmem_ulong_atomic_add(h->counter, 1, u.pe);
            break;
#if BENCH_HAVE_SPEC_1_5
        case PUT_SIGNAL:
            shmem_putmem_signal(dst, &v, sizeof v, h->counter, 1, SHMEM_SIGNAL_ADD, u.pe);
            break;
#endif
        case AMO_ADD: shmem_ulong_atomic_add(dst, u.add, u.pe); break;
        case AMO_FETCH_ADD: (void)shmem_ulong_atomic_fetch_add(dst, u.add, u.pe); break;
        case AMO_SET: shmem_ulong_atomic_set(dst, v, u.pe); break;
        case AMO_SWAP:
            check_fetched(h, shmem_ulong_atomic_swap(dst, v, u.pe), u.pe, u.idx);
            break;
        case AMO_CSWAP:
            check_fetched(h, shmem_ulong_atomic_compare_swap(dst, 0, v, u.pe), u.pe, u.idx);
            break;
#if HRA_EXT
        case PUT_NBI_SESSION:
            h->sym_src[slot] = v;
            shmem_putmem_nbi(dst, &h->sym_src[slot], sizeof v, u.pe);
            break;
        case PUT_SIGNAL_SESSION:
            shmem_putmem_signal(dst, &v, sizeof v, h->counter, 1, SHMEM_SIGNAL_ADD, u.pe);
            break;
        case AMO_ADD_ST: shmem_ulong_atomic_add(dst, u.add, u.pe); break;
        case AMO_FETCH_ADD_ST: (void)shmem_ulong_atomic_fetch_add(dst, u.add, u.pe); break;
        case AMO_SET_ST: shmem_ulong_atomic_set(dst, v, u.pe); break;
        case SIGNAL_SET: shmemx_signal_set((uint64_t *)dst, v, u.pe); break;
#endif
        case KINDS: break;
        }
    }
#if HRA_EXT
    if (session)
        shmemx_ctx_session_stop(SHMEM_CTX_DEFAULT);
#endif
    shmem_quiet();
    free(heap_src);
}

/* Replays every PE's stream and counts this PE's elements that differ from it. */
static long verify(struct hra *h, enum kind k)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    unsigned long *expect = calloc(h->size, sizeof *expect);
    uint64_t hits = 0;
    if (!expect)
        shmem_global_exit(1);
    for (int pe = 0; pe < npes; pe++) {
        uint64_t state = stream_seed(h, pe);
        for (long j = 0; j < h->updates; j++) {
            struct update u = next_update(&state, h, npes);
            if (u.pe != me)
                continue;
            hits++;
            expect[u.idx] = is_add_kind(k) ? expect[u.idx] + u.add : cell_value(me, u.idx);
        }
    }
    long bad = h->bad_fetches;
    for (size_t i = 0; i < h->size; i++)
        bad += h->table[i] != expect[i];
    if (is_signal_kind(k))
        bad += *h->counter != hits;
    free(expect);
    return bad;
}

static long errors; /* symmetric: PE 0 sums every PE's mismatches here */

int main(int argc, char **argv)
{
    struct hra h = { 1u << 20, 100000, 1, NULL, NULL, NULL, 0 };
    int c;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    while ((c = getopt(argc, argv, "n:u:S:h")) != -1) {
        switch (c) {
        case 'n': h.size = bench_parse_size(optarg); break;
        case 'u': h.updates = atol(optarg); break;
        case 'S': h.seed = strtoull(optarg, NULL, 0); break;
        default:
            if (me == 0)
                fprintf(stderr,
                        "usage: %s [-n table elements per PE] [-u updates per PE] [-S "
                        "seed]\n",
                        argv[0]);
            shmem_finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    if (h.size < 1 || h.updates < 1) {
        if (me == 0)
            fprintf(stderr, "hra: need table size >= 1 and updates >= 1\n");
        shmem_finalize();
        return 2;
    }
    h.table = shmem_malloc(h.size * sizeof *h.table);
    h.sym_src = shmem_malloc(WINDOW * sizeof *h.sym_src);
    h.counter = shmem_malloc(sizeof *h.counter);
    if (!h.table || !h.sym_src || !h.counter) {
        if (me == 0)
            fprintf(stderr, "hra: symmetric allocation failed (table of %zu elements)\n",
                    h.size);
        shmem_global_exit(1);
    }
    if (me == 0) {
        bench_header("HRA random access", "");
        printf("# table %zu elements/PE, %ld updates/PE, seed %llu\n", h.size, h.updates,
               (unsigned long long)h.seed);
        printf("# %-16s %10s %14s %14s %14s  %s\n", "Kind", "Time (s)", "MUPS (total)",
               "MUPS/PE", "MB/s (total)", "Check");
    }
    int failed = 0;
    for (int k = 0; k < KINDS; k++) {
        memset(h.table, 0, h.size * sizeof *h.table);
        *h.counter = 0;
        h.bad_fetches = 0;
        errors = 0;
        shmem_barrier_all();
        double t0 = bench_now();
        run_pass(&h, k);
        shmem_barrier_all();
        double t = bench_now() - t0;
        shmem_long_atomic_add(&errors, verify(&h, k), 0);
        shmem_barrier_all();
        if (me == 0) {
            double ups = (double)h.updates * npes / t / 1e6;
            double mbs = ups * sizeof(unsigned long);
            printf("  %-16s %10.4f %14.3f %14.3f %14.2f  %s\n", kind_names[k], t, ups,
                   ups / npes, mbs, errors ? "FAILED" : "PASSED");
            char name[64];
            snprintf(name, sizeof name, "hra_%s", kind_names[k]);
            bench_result(name, sizeof(unsigned long), "rate_Mups", ups);
            bench_result(name, sizeof(unsigned long), "bw_MBps", mbs);
            failed |= errors != 0;
        }
    }
    shmem_barrier_all();
    shmem_free(h.counter);
    shmem_free(h.sym_src);
    shmem_free(h.table);
    shmem_finalize();
    return failed;
}
