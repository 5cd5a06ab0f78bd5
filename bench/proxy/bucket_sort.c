/* Distributed bucket sort with the append pattern (seed slides "A47", paper 002
 * section 7.1), in the slides' six variants and a device-initiated one (-V, default
 * HA_HI; "all" or a comma-separated
 * list runs each in turn). Every variant counts, buckets and sorts on the device (bucket_sort.h: GPU
 * kernels with -K cuda or -K hip, host threads through Shoal's device copies with the
 * default -K host), from a key table that lives in device memory:
 *   HA_HI        host-allocated, host-initiated: the buckets are copied from the device
 *                into a symmetric host scratch pad, chunk by chunk, and appended from
 *                there into host receive tables; the received keys go back to the
 *                device to be sorted;
 *   GA_HI        GPU-allocated, host-initiated (GPU-aware SHMEM): buckets and receive
 *                tables in the device space (shmem_space_malloc, SHMEM_SPACE_DEVICE),
 *                appended straight from device to device, so CpyTime is gone;
 *   GA_HI_OO     GA_HI with thread specialization: a second thread runs the bucketing
 *                kernels slab by slab while the main thread appends the slabs done;
 *   HA_HI_A2AV   HA_HI with each round's chunks sent by one
 *                shmemx_team_alltoallv_packed (HPE Cray OpenSHMEMX's, Shoal's builds
 *                only), which lays them out in the receive tables in sender order, in
 *                place of the fetch-adds and puts; -V HA_HI,HA_HI_A2AV compares them;
 *   HA_HI_OMP    HA_HI with -T threads (the slides' OpenMP threads) each staging and
 *                appending the chunks of its share of the destinations, on its own
 *                context: one thread's copies overlap another's puts;
 *   GA_HI_OMP    GA_HI with -T appending threads;
 *   GA_HI_Stream GA_HI with the bucketing of each slab queued on one of two device
 *                streams, so the device buckets the next slabs while the host appends
 *                the previous one;
 *   GA_DI        GPU-allocated, device-initiated: GA_HI's buckets and tables, appended
 *                by a kernel through Shoal's device API (shmemx_device.h; bucket_sort.h's
 *                exchange): the fetch-adds, the puts and their signals are issued on the
 *                device, same-node PEs by loads and stores, other nodes through the
 *                host proxy, and the kernel returns once everything bound here has
 *                landed. Shoal only (emu kernels on host threads, or CUDA).
 * The GA variants need SHMEM_SYMMETRIC_SIZE_DEVICE (about 2.1 x elements x element
 * bytes).
 *
 * Every PE holds `elements` random keys. Phases, each timed on its own:
 *   SortTime  bucket the local keys by destination PE on the device, and at the end
 *             sort the keys received, on the device; for GA_HI_OO and GA_HI_Stream only
 *             the part that the exchange does not hide (the appending thread waiting);
 *   CpyTime   copies between device and host: staging each destination's next chunk
 *             (A_MsizeB bytes at most) into the scratch pad, and the received keys back
 *             to the device (HA rows; with threads, the slowest thread's);
 *   ExchTime  append each chunk to its destination: a remote fetch-add on the
 *             destination's fill counter reserves room, then a non-blocking put (with
 *             threads, the slowest thread's; GA_DI: the exchange kernel, from its launch
 *             until it has returned; HA_HI_A2AV: a reduction for the rounds' count, and
 *             the alltoallv of each round), and the barrier after.
 * LB = data per PE / TotTime and UB = data per PE / ExchTime, in GiB/s, with the
 * slowest PE's times. Check, done on the host from what the device holds after the
 * sort: global order (every PE holds only its key range, locally sorted), the global
 * key count, the key sum and a hash sum of the keys as multisets, and every element's
 * extra words. */
#include "bench.h"
#include "bucket_sort.h"

#include <pthread.h>
#include <sched.h>
#if defined(__has_include)
#if __has_include(<shmemx.h>)
#include <shmemx.h>
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SHMEM_SPACE_DEVICE
/* An implementation without memory spaces: the GA variants find no device space. */
typedef int shmem_space_t;
#define SHMEM_SPACE_DEFAULT 0
#define SHMEM_SPACE_DEVICE 1
static void *shmem_space_malloc(shmem_space_t space, size_t size)
{
    return space == SHMEM_SPACE_DEFAULT ? shmem_malloc(size) : NULL;
}
#endif

struct params {
    long elements;   /* per PE */
    int word;        /* bytes per word: 4 or 8 */
    int words;       /* words per element; the first is the key */
    double headroom; /* percent of extra room in each PE's receive table */
    uint64_t seed;
    size_t chunk; /* A_MsizeB: bytes appended per put at most */
    int threads;  /* the _OMP variants' appending threads */
    int slabs;    /* GA_HI_OO's and GA_HI_Stream's pieces of the table */
};

static void set_word(unsigned char *e, int k, int word, uint64_t v)
{
    if (word == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(e + (size_t)k * 4, &w, 4);
    } else {
        memcpy(e + (size_t)k * 8, &v, 8);
    }
}

static uint64_t word_at(const unsigned char *e, int k, int word)
{
    return bs_key(e + (size_t)k * (size_t)word, word);
}

/* Extra words carry a function of the key, so the check sees elements arrive whole. */
static uint64_t extra_word(uint64_t key, int k, int word)
{
    uint64_t v = key ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull);
    return word == 4 ? (uint32_t)v : v;
}

/* A mix of the key for the check's hash sum: sums of it agree for equal multisets of
 * keys, and seldom otherwise. */
static uint64_t key_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    return key ^ (key >> 33);
}

/* Symmetric state: the receive table's fill counter and PE 0's check accumulators. */
static long fill;
static unsigned long total_count, sum_before, sum_after, hash_before, hash_after;
static long bad_pes;

enum phase { TOT, SORT, CPY, EXCH, PHASES };

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-e elements/PE] [-w word bytes 4|8] [-W words/element] [-H headroom "
            "%%]\n"
            "          [-S seed] [-a A_MsizeB: bytes per append] [-T threads] [-s slabs]\n"
            "          [-V HA_HI|HA_HI_A2AV|GA_HI|GA_HI_OO|HA_HI_OMP|GA_HI_OMP|GA_HI_Stream|"
            "GA_DI|all,\n"
            "           or a list: HA_HI,GA_HI]\n"
            "          [-K host|cuda|hip: what runs the device steps] [-k kernels file]\n",
            prog);
}

enum variant {
    HA_HI,
    HA_HI_A2AV,
    GA_HI,
    GA_HI_OO,
    HA_HI_OMP,
    GA_HI_OMP,
    GA_HI_STREAM,
    GA_DI,
    VARIANTS
};
static const char *const variant_name[VARIANTS] = { "HA_HI",        "HA_HI_A2AV", "GA_HI",
                                                    "GA_HI_OO",     "HA_HI_OMP",  "GA_HI_OMP",
                                                    "GA_HI_Stream", "GA_DI" };

static const struct bs_kernels *K; /* what runs the device steps */

/* What one run shares: the parameters and this PE's keys. */
struct job {
    struct params p;
    int me, npes;
    size_t n, eb, chunk_elems, cap;
    unsigned char *dtable; /* the keys, in device memory */
    double *times;         /* symmetric: PHASES x npes, the times gathered on PE 0 */
};

/* Ends the job when a device step failed (the kernels said what). */
static void must(int rc)
{
    if (rc)
        shmem_global_exit(1);
}

/* Appends len elements at src to PE d: a fetch-add on d's fill counter reserves room,
 * then a non-blocking put. Returns 1 when d's table is full. */
static int append_one(shmem_ctx_t ctx, const struct job *j, int d, const unsigned char *src,
                      size_t len, unsigned char *recv)
{
    long off = shmem_ctx_long_atomic_fetch_add(ctx, &fill, (long)len, d);
    if ((size_t)off + len > j->cap)
        return 1;
    shmem_ctx_putmem_nbi(ctx, recv + (size_t)off * j->eb, src, len * j->eb, d);
    return 0;
}

/* Appends count[d] elements of src (one slab's buckets, at start[d]) to every PE d in
 * chunks of chunk_elems. */
static int append(const struct job *j, const unsigned char *src, const size_t *count,
                  const size_t *start, unsigned char *recv)
{
    int overflow = 0;
    for (int i = 0; i < j->npes; i++) {
        int d = (j->me + 1 + i) % j->npes; /* start at a different PE on every PE */
        for (size_t k = 0; k < count[d]; k += j->chunk_elems) {
            size_t len = count[d] - k < j->chunk_elems ? count[d] - k : j->chunk_elems;
            overflow |= append_one(SHMEM_CTX_DEFAULT, j, d, src + (start[d] + k) * j->eb, len,
                                   recv);
        }
    }
    return overflow;
}

/* HA: stages the next chunk (chunk_elems at most) of every destination's bucket from
 * the device into its part of the scratch pad: len[d] elements at element at[d]. */
static void stage(const struct job *j, unsigned char *scratch, const unsigned char *dbuck,
                  const size_t *count, const size_t *start, const size_t *sent, size_t *len,
                  size_t *at)
{
    for (int d = 0; d < j->npes; d++) {
        size_t rest = count[d] - sent[d];
        len[d] = rest < j->chunk_elems ? rest : j->chunk_elems;
        at[d] = (size_t)d * j->chunk_elems;
        must(K->d2h(scratch + at[d] * j->eb, dbuck + (start[d] + sent[d]) * j->eb,
                    len[d] * j->eb));
    }
}

#ifdef BUCKET_SORT_SHOAL_DEVICE
static long rounds_mine, rounds_all; /* HA_HI_A2AV: the reduction's operands */

/* HA_HI_A2AV's exchange: as many rounds as the longest bucket of any PE needs, each
 * staging one chunk per destination and sending them all in one packed alltoallv
 * appended at this PE's fill. Returns the time spent staging. */
static double exchange_a2av(const struct job *j, unsigned char *scratch,
                            const unsigned char *dbuck, const size_t *count,
                            const size_t *start, size_t *sent, unsigned char *recv)
{
    int npes = j->npes;
    size_t eb = j->eb, len[npes], at[npes];
    size_t *s_off = shmem_malloc(2 * (size_t)npes * sizeof *s_off), *s_len = s_off + npes;
    if (!s_off) {
        fprintf(stderr, "bucket_sort: PE %d: out of memory (raise SHMEM_SYMMETRIC_SIZE?)\n",
                j->me);
        shmem_global_exit(1);
    }
    rounds_mine = 0;
    for (int d = 0; d < npes; d++) {
        long r = (long)((count[d] + j->chunk_elems - 1) / j->chunk_elems);
        rounds_mine = r > rounds_mine ? r : rounds_mine;
    }
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, &rounds_all, &rounds_mine, 1);
    double cpy = 0;
    for (long r = 0; r < rounds_all; r++) {
        double ts = bench_now();
        stage(j, scratch, dbuck, count, start, sent, len, at);
        cpy += bench_now() - ts;
        for (int d = 0; d < npes; d++) {
            s_off[d] = at[d] * eb;
            s_len[d] = len[d] * eb;
            sent[d] += len[d];
        }
        /* The table bounds what arrives: more ends the job, with the library's message. */
        size_t got;
        shmemx_team_alltoallv_packed(SHMEM_TEAM_WORLD, recv + (size_t)fill * eb,
                                     (j->cap - (size_t)fill) * eb, &got, scratch, s_off,
                                     s_len);
        fill += (long)(got / eb);
    }
    shmem_free(s_off);
    return cpy;
}
#endif

/* A bucketing's counts as sizes, and where each bucket starts. */
static void layout(int npes, const uint64_t *counts, size_t *count, size_t *start)
{
    for (int d = 0; d < npes; d++) {
        count[d] = (size_t)counts[d];
        start[d] = d ? start[d - 1] + count[d - 1] : 0;
    }
}

/* The slabs of GA_HI_OO and GA_HI_Stream: slab k is table[slab_lo(k), slab_lo(k + 1)). */
static size_t slab_lo(const struct job *j, int k)
{
    return j->n * (size_t)k / (size_t)j->p.slabs;
}

/* GA_HI_OO's kernel thread: buckets slab by slab, publishing each when done. */
struct slabs {
    const struct job *j;
    unsigned char *dbuck;
    uint64_t *counts; /* slabs x npes */
    int ready;        /* slabs bucketed so far (atomic) */
};

static void *bucket_slabs(void *arg)
{
    struct slabs *s = arg;
    const struct job *j = s->j;
    for (int k = 0; k < j->p.slabs; k++) {
        size_t lo = slab_lo(j, k), hi = slab_lo(j, k + 1);
        must(K->bucket(0, j->dtable + lo * j->eb, hi - lo, s->dbuck + lo * j->eb,
                       s->counts + (size_t)k * (size_t)j->npes));
        must(K->sync(0));
        __atomic_store_n(&s->ready, k + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* An _OMP variant's thread: the destinations i = t, t + T, ... (in the rotated order)
 * from the device buckets, staged through the scratch pad when it is there. */
struct omp {
    const struct job *j;
    int t, nthreads;
    const unsigned char *dbuck;
    const size_t *count, *start;
    unsigned char *scratch, *recv; /* scratch: NULL for GA_HI_OMP */
    double cpy, exch;
    int overflow;
};

static void *omp_main(void *arg)
{
    struct omp *o = arg;
    const struct job *j = o->j;
    shmem_ctx_t ctx;
    int own = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    if (!own)
        ctx = SHMEM_CTX_DEFAULT;
    for (int i = o->t; i < j->npes; i += o->nthreads) {
        int d = (j->me + 1 + i) % j->npes;
        for (size_t k = 0; k < o->count[d]; k += j->chunk_elems) {
            size_t len = o->count[d] - k < j->chunk_elems ? o->count[d] - k : j->chunk_elems;
            const unsigned char *src = o->dbuck + (o->start[d] + k) * j->eb;
            double ts = bench_now();
            if (o->scratch) { /* destination d's slot of the scratch pad is ours */
                unsigned char *slot = o->scratch + (size_t)d * j->chunk_elems * j->eb;
                must(K->d2h(slot, src, len * j->eb));
                src = slot;
                o->cpy += bench_now() - ts;
                ts = bench_now();
            }
            o->overflow |= append_one(ctx, j, d, src, len, o->recv);
            if (o->scratch)
                shmem_ctx_quiet(ctx); /* the slot is restaged next */
            o->exch += bench_now() - ts;
        }
    }
    double ts = bench_now();
    shmem_ctx_quiet(ctx);
    o->exch += bench_now() - ts;
    if (own)
        shmem_ctx_destroy(ctx);
    return NULL;
}

static int thread_level = SHMEM_THREAD_SINGLE;

static int run(const struct job *j, enum variant v)
{
    size_t n = j->n, eb = j->eb, cap = j->cap;
    int me = j->me, npes = j->npes;
    int ga = v != HA_HI && v != HA_HI_A2AV && v != HA_HI_OMP;
    const char *no_di = v == GA_DI ? K->no_exchange() : NULL;
#ifndef BUCKET_SORT_SHOAL_DEVICE
    if (v == HA_HI_A2AV)
        no_di = "this OpenSHMEM has no shmemx_team_alltoallv_packed";
#endif
    if (no_di) {
        if (me == 0)
            printf("%s\tskipped: %s\n", variant_name[v], no_di);
        return 1;
    }
    int omp = v == HA_HI_OMP || v == GA_HI_OMP;
    shmem_space_t space = ga ? SHMEM_SPACE_DEVICE : SHMEM_SPACE_DEFAULT;
    size_t scratch_bytes = ga ? 0 : j->chunk_elems * eb * (size_t)npes;
    unsigned char *hrecv = malloc(cap * eb);
    unsigned char *recv = shmem_space_malloc(space, cap * eb);
    /* The buckets: symmetric device memory that the puts read (GA), or device memory of
     * this PE that the scratch pad is staged from (HA), which sorts in dwork. */
    unsigned char *dbuck =
            ga ? shmem_space_malloc(SHMEM_SPACE_DEVICE, n * eb) : K->alloc(n * eb);
    unsigned char *dwork = ga ? NULL : K->alloc(cap * eb);
    unsigned char *scratch = ga ? NULL : shmem_malloc(scratch_bytes);
    /* GA_DI's fill, arrived and senders (struct bs_exch), where kernels reach them. */
    uint64_t *words = v == GA_DI ? shmem_space_malloc(SHMEM_SPACE_DEVICE, 3 * 8) : NULL;
    uint64_t *counts = calloc((size_t)j->p.slabs * (size_t)npes, sizeof *counts);
    size_t *count = calloc((size_t)npes, sizeof *count),
           *start = calloc((size_t)npes, sizeof *start);
    size_t *sent = calloc((size_t)npes, sizeof *sent);
    if (!hrecv || !recv || !dbuck || (!ga && (!dwork || !scratch)) ||
        (v == GA_DI && !words) || !counts || !count || !start || !sent) {
        fprintf(stderr,
                "bucket_sort %s: PE %d: out of memory (raise SHMEM_SYMMETRIC_SIZE%s?)\n",
                variant_name[v], me, ga ? "_DEVICE" : "");
        shmem_global_exit(1);
    }
    memset(hrecv, 0, cap * eb); /* touch the pages before timing */
    shmem_putmem(recv, hrecv, cap * eb, me);
    if (scratch)
        memset(scratch, 0, scratch_bytes);
    if (words) {
        static const uint64_t zero[3];
        shmem_putmem(words, zero, sizeof zero, me);
    }
    fill = 0;
    shmem_barrier_all();

    double t[PHASES] = { 0 }, t0 = bench_now(), ts;
    int overflow = 0, slabs = j->p.slabs;
    if (v == GA_HI_OO) {
        /* The kernel thread runs ahead; this one appends each slab bucketed. */
        struct slabs s = { .j = j, .dbuck = dbuck, .counts = counts };
        pthread_t th;
        if (pthread_create(&th, NULL, bucket_slabs, &s)) {
            fprintf(stderr, "bucket_sort: PE %d: cannot start the kernel thread\n", me);
            shmem_global_exit(1);
        }
        for (int k = 0; k < slabs; k++) {
            ts = bench_now();
            while (__atomic_load_n(&s.ready, __ATOMIC_ACQUIRE) <= k)
                sched_yield();
            t[SORT] += bench_now() - ts;
            ts = bench_now();
            layout(npes, counts + (size_t)k * (size_t)npes, count, start);
            overflow |= append(j, dbuck + slab_lo(j, k) * eb, count, start, recv);
            t[EXCH] += bench_now() - ts;
        }
        pthread_join(th, NULL);
    } else if (v == GA_DI) {
        ts = bench_now(); /* SortTime: bucket on the device, as the GA rows do */
        must(K->bucket(0, j->dtable, n, dbuck, counts));
        must(K->sync(0));
        t[SORT] += bench_now() - ts;
        /* ExchTime: a kernel appends the buckets, reading their counts on the device, and
         * returns once everything bound here has landed. */
        ts = bench_now();
        struct bs_exch x = { .buck = dbuck,
                             .recv = recv,
                             .cap = cap,
                             .chunk = j->chunk_elems,
                             .fill = (long *)&words[0],
                             .arrived = &words[1],
                             .senders = &words[2] };
        must(K->exchange(0, &x));
        must(K->sync(0));
        t[EXCH] += bench_now() - ts;
    } else if (v == GA_HI_STREAM) {
        /* Slab k is bucketed on stream k mod BS_STREAMS; once it is done, the next slab
         * of that stream is queued before slab k is appended. */
        ts = bench_now();
        for (int k = 0; k < slabs && k < BS_STREAMS; k++)
            must(K->bucket(k, j->dtable + slab_lo(j, k) * eb,
                           slab_lo(j, k + 1) - slab_lo(j, k), dbuck + slab_lo(j, k) * eb,
                           counts + (size_t)k * (size_t)npes));
        t[SORT] += bench_now() - ts;
        for (int k = 0; k < slabs; k++) {
            int q = k % BS_STREAMS, next = k + BS_STREAMS;
            ts = bench_now();
            must(K->sync(q));
            if (next < slabs)
                must(K->bucket(q, j->dtable + slab_lo(j, next) * eb,
                               slab_lo(j, next + 1) - slab_lo(j, next),
                               dbuck + slab_lo(j, next) * eb,
                               counts + (size_t)next * (size_t)npes));
            t[SORT] += bench_now() - ts;
            ts = bench_now();
            layout(npes, counts + (size_t)k * (size_t)npes, count, start);
            overflow |= append(j, dbuck + slab_lo(j, k) * eb, count, start, recv);
            t[EXCH] += bench_now() - ts;
        }
    } else {
        /* SortTime, part 1: bucket the whole table on the device. */
        ts = bench_now();
        must(K->bucket(0, j->dtable, n, dbuck, counts));
        must(K->sync(0));
        layout(npes, counts, count, start);
        t[SORT] += bench_now() - ts;
        if (omp) {
            int nthreads = j->p.threads;
            struct omp o[nthreads];
            pthread_t th[nthreads];
            for (int i = 0; i < nthreads; i++)
                o[i] = (struct omp){ .j = j,
                                     .t = i,
                                     .nthreads = nthreads,
                                     .dbuck = dbuck,
                                     .count = count,
                                     .start = start,
                                     .scratch = scratch,
                                     .recv = recv };
            if (nthreads == 1) { /* SHMEM calls from this thread only */
                omp_main(&o[0]);
            } else {
                for (int i = 0; i < nthreads; i++)
                    if (pthread_create(&th[i], NULL, omp_main, &o[i])) {
                        fprintf(stderr, "bucket_sort: PE %d: cannot start thread %d\n", me,
                                i);
                        shmem_global_exit(1);
                    }
                for (int i = 0; i < nthreads; i++)
                    pthread_join(th[i], NULL);
            }
            double cpy = 0, exch = 0;
            for (int i = 0; i < nthreads; i++) {
                cpy = o[i].cpy > cpy ? o[i].cpy : cpy;
                exch = o[i].exch > exch ? o[i].exch : exch;
                overflow |= o[i].overflow;
            }
            t[CPY] += cpy;
            t[EXCH] += exch;
        } else if (ga) {
            ts = bench_now(); /* ExchTime: straight from the device buckets */
            overflow = append(j, dbuck, count, start, recv);
            t[EXCH] += bench_now() - ts;
#ifdef BUCKET_SORT_SHOAL_DEVICE
        } else if (v == HA_HI_A2AV) {
            ts = bench_now(); /* ExchTime: the whole, less the staging (CpyTime) */
            double cpy = exchange_a2av(j, scratch, dbuck, count, start, sent, recv);
            t[CPY] += cpy;
            t[EXCH] += bench_now() - ts - cpy;
#endif
        } else {
            for (size_t left = n; left > 0;) {
                size_t len[npes], one[npes], at[npes];
                ts = bench_now(); /* CpyTime: stage one chunk per destination */
                stage(j, scratch, dbuck, count, start, sent, len, at);
                t[CPY] += bench_now() - ts;
                ts = bench_now(); /* ExchTime: reserve room remotely, then put */
                memcpy(one, len, sizeof one);
                overflow |= append(j, scratch, one, at, recv);
                for (int d = 0; d < npes; d++) {
                    sent[d] += len[d];
                    left -= len[d];
                }
                shmem_quiet(); /* the scratch pad is restaged next round */
                t[EXCH] += bench_now() - ts;
            }
        }
    }
    ts = bench_now();
    shmem_quiet();
    shmem_barrier_all(); /* every append to this PE has landed */
    t[EXCH] += bench_now() - ts;
    long received = fill;
    if (words) /* GA_DI's fill counter is on the device */
        shmem_getmem(&received, &words[0], sizeof received, me);

    /* SortTime, part 2: sort what arrived, on the device (HA: after copying it there). */
    size_t got = (size_t)received < cap ? (size_t)received : cap;
    unsigned char *sorted = ga ? recv : dwork;
    if (!ga) {
        ts = bench_now();
        must(K->h2d(dwork, recv, got * eb));
        t[CPY] += bench_now() - ts;
    }
    ts = bench_now();
    must(K->sort(0, sorted, got));
    must(K->sync(0));
    t[SORT] += bench_now() - ts;
    t[TOT] = bench_now() - t0;

    /* Check, from what the device holds: order and range here, counts and sums on PE 0. */
    int bad = overflow || (size_t)received > cap;
    unsigned long recv_sum = 0, recv_hash = 0;
    if (ga)
        shmem_getmem(hrecv, recv, got * eb, me);
    else
        must(K->d2h(hrecv, dwork, got * eb));
    for (size_t i = 0; i < got && !bad; i++) {
        const unsigned char *e = hrecv + i * eb;
        uint64_t key = word_at(e, 0, j->p.word);
        bad |= bs_dest(key, j->p.word, npes) != me;
        bad |= i > 0 && word_at(e - eb, 0, j->p.word) > key;
        for (int k = 1; k < j->p.words; k++)
            bad |= word_at(e, k, j->p.word) != extra_word(key, k, j->p.word);
        recv_sum += key;
        recv_hash += key_hash(key);
    }
    if ((size_t)received > cap)
        fprintf(stderr,
                "bucket_sort: PE %d received %ld elements, room for %zu: raise the headroom "
                "(-H)\n",
                me, received, cap);
    shmem_ulong_atomic_add(&total_count, (unsigned long)got, 0);
    shmem_ulong_atomic_add(&sum_after, recv_sum, 0);
    shmem_ulong_atomic_add(&hash_after, recv_hash, 0);
    if (bad)
        shmem_long_atomic_inc(&bad_pes, 0);
    for (int ph = 0; ph < PHASES; ph++)
        shmem_double_p(&j->times[ph * npes + me], t[ph], 0);
    shmem_barrier_all();

    int passed = 1;
    if (me == 0) {
        double worst[PHASES] = { 0 };
        for (int ph = 0; ph < PHASES; ph++)
            for (int pe = 0; pe < npes; pe++)
                worst[ph] = j->times[ph * npes + pe] > worst[ph] ? j->times[ph * npes + pe]
                                                                 : worst[ph];
        passed = bad_pes == 0 && total_count == n * (size_t)npes && sum_after == sum_before &&
                hash_after == hash_before;
        double gib = (double)n * (double)eb / (1024.0 * 1024.0 * 1024.0);
        printf("%s\t%zu\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%s\n", variant_name[v],
               j->chunk_elems * eb, worst[TOT], worst[SORT], worst[CPY], worst[EXCH],
               gib / worst[TOT], gib / worst[EXCH], passed ? "PASSED" : "FAILED");
        static const char *const metric[PHASES] = { "tot_s", "sort_s", "cpy_s", "exch_s" };
        char name[32];
        snprintf(name, sizeof name, v == HA_HI ? "bucket_sort" : "bucket_sort_%s",
                 variant_name[v]);
        for (int ph = 0; ph < PHASES; ph++)
            bench_result(name, j->chunk_elems * eb, metric[ph], worst[ph]);
        bench_result(name, j->chunk_elems * eb, "lb_GiBps", gib / worst[TOT]);
        bench_result(name, j->chunk_elems * eb, "ub_GiBps", gib / worst[EXCH]);
        total_count = sum_after = hash_after = 0;
        bad_pes = 0;
    }
    shmem_barrier_all();
    if (scratch)
        shmem_free(scratch);
    if (words)
        shmem_free(words);
    if (ga)
        shmem_free(dbuck);
    else
        K->free(dbuck);
    K->free(dwork);
    shmem_free(recv);
    free(sent);
    free(start);
    free(count);
    free(counts);
    free(hrecv);
    return passed;
}

static int passed_all = 1;

int main(int argc, char **argv)
{
    struct job j = { .p = { 1 << 20, 8, 1, 2.0, 1, 1 << 20, 4, 8 } };
    struct params *p = &j.p;
    const char *which = "HA_HI", *kernels = "host", *kfile = NULL;
    int c;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &thread_level);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    while ((c = getopt(argc, argv, "e:w:W:H:S:a:T:s:V:K:k:h")) != -1) {
        switch (c) {
        case 'e': p->elements = (long)bench_parse_size(optarg); break;
        case 'w': p->word = atoi(optarg); break;
        case 'W': p->words = atoi(optarg); break;
        case 'H': p->headroom = atof(optarg); break;
        case 'S': p->seed = strtoull(optarg, NULL, 0); break;
        case 'a': p->chunk = bench_parse_size(optarg); break;
        case 'T': p->threads = atoi(optarg); break;
        case 's': p->slabs = atoi(optarg); break;
        case 'V': which = optarg; break;
        case 'K': kernels = optarg; break;
        case 'k': kfile = optarg; break;
        default:
            if (me == 0)
                usage(argv[0]);
            shmem_finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    int want[VARIANTS] = { 0 }, any = 0, unknown = 0;
    char *list = strdup(which), *save = NULL; /* names, comma separated */
    for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int known = 0;
        for (int v = 0; v < VARIANTS; v++)
            if (!strcmp(w, "all") || !strcmp(w, variant_name[v]))
                known = want[v] = any = 1;
        unknown |= !known;
    }
    free(list);
    K = !strcmp(kernels, "host")       ? &bs_host_kernels
            : !strcmp(kernels, "cuda") ? &bs_cuda_kernels
            : !strcmp(kernels, "hip")  ? &bs_hip_kernels
                                       : NULL;
    size_t eb = (size_t)p->word * (size_t)p->words;
    if (p->elements < 1 || (p->word != 4 && p->word != 8) || p->words < 1 ||
        p->headroom < 0 || p->chunk < eb || p->threads < 1 || p->threads > 256 ||
        p->slabs < 1 || p->slabs > 4096 || !any || unknown || !K) {
        if (me == 0) {
            usage(argv[0]);
            fprintf(stderr,
                    "need elements >= 1, word 4 or 8, words >= 1, headroom >= 0, "
                    "A_MsizeB >= one element, 1-256 threads, 1-4096 slabs, a known variant "
                    "and kernels\n");
        }
        shmem_finalize();
        return 2;
    }
    if (p->threads > 1 && thread_level < SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr,
                    "bucket_sort: no SHMEM_THREAD_MULTIPLE here: the _OMP variants "
                    "run one thread\n");
        p->threads = 1;
    }
    j.me = me;
    j.npes = npes;
    j.eb = eb;
    j.n = (size_t)p->elements;
    j.chunk_elems = p->chunk / eb;
    j.cap = j.n + (size_t)((double)j.n * p->headroom / 100.0);
#if BENCH_HAVE_SPEC_1_5
    int local = shmem_team_my_pe(SHMEM_TEAM_SHARED);
#else
    int local = me;
#endif
    struct bs_geom geom = { me, npes, p->word, (int)eb, local < 0 ? me : local };
    must(K->init(&geom, kfile));
    unsigned char *table = malloc(j.n * eb);
    j.dtable = K->alloc(j.n * eb);
    j.times = shmem_malloc(sizeof(double) * PHASES * (size_t)npes);
    if (!table || !j.dtable || !j.times) {
        fprintf(stderr, "bucket_sort: PE %d: out of memory (raise SHMEM_SYMMETRIC_SIZE?)\n",
                me);
        shmem_global_exit(1);
    }
    uint64_t state = p->seed * 0x100000001b3ull + (uint64_t)me * 0x9e3779b97f4a7c15ull;
    unsigned long my_sum = 0, my_hash = 0;
    for (size_t i = 0; i < j.n; i++) {
        uint64_t key = bench_rand(&state);
        if (p->word == 4)
            key >>= 32;
        unsigned char *e = table + i * eb;
        set_word(e, 0, p->word, key);
        for (int k = 1; k < p->words; k++)
            set_word(e, k, p->word, extra_word(key, k, p->word));
        my_sum += key;
        my_hash += key_hash(key);
    }
    must(K->h2d(j.dtable, table, j.n * eb)); /* the keys live on the device */
    free(table);
    shmem_ulong_atomic_add(&sum_before, my_sum, 0);
    shmem_ulong_atomic_add(&hash_before, my_hash, 0);
    shmem_barrier_all();

    if (me == 0) {
        double mib = 1024.0 * 1024.0;
        size_t scratch_bytes = j.chunk_elems * eb * (size_t)npes;
        printf("*****\n* A47 bucket sort (append pattern)\n* NPES = %d\n"
               "* Est Num Elements per PE = %ld\n* sizeof(ELEMENT_TYPE) Word = %d\n"
               "* Words per Element = %d\n* Headroom = %.2f %%\n* OMP Threads = %d\n"
               "* Kernels = %s\n* Rand Seed = %llu\n* table array size/PE (MiB) = %.3f\n"
               "* Scratch Pad size/PE (MiB) = %.3f\n* Est Memory footprint/PE (MiB) = "
               "%.3f\n\n",
               npes, p->elements, p->word, p->words, p->headroom, p->threads, K->describe(),
               (unsigned long long)p->seed, (double)(j.n * eb) / mib,
               (double)scratch_bytes / mib,
               (double)(2 * j.n * eb + j.cap * eb + scratch_bytes) / mib);
        printf("Test\tA_MsizeB\tTotTime\tSortTime\tCpyTime\tExchTime\tLB_GiB/s/PE\tUB_GiB/s/"
               "PE\tCheck\n");
    }
    for (int v = 0; v < VARIANTS; v++)
        if (want[v])
            passed_all &= run(&j, v);
    if (me == 0)
        printf("\n%s\n\n*****\n",
               passed_all ? "A47 has sorted things out!" : "A47 did not sort things out.");
    shmem_barrier_all();
    shmem_free(j.times);
    K->free(j.dtable);
    K->fini();
    shmem_finalize();
    return passed_all ? 0 : 1;
}
