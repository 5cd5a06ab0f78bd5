/* Distributed bucket sort with the append pattern (seed slides "A47", paper 002
 * section 7.1), in the slides' variants (-V, default HA_HI; "all" runs each in turn):
 *   HA_HI     host-allocated, host-initiated: buckets in host memory, staged through a
 *             symmetric scratch pad before each append;
 *   GA_HI     GPU-allocated, host-initiated (GPU-aware SHMEM): the buckets and the
 *             receive table live in the device space (shmem_space_malloc with
 *             SHMEM_SPACE_DEVICE) and the appends put straight from device buckets into
 *             device memory, so CpyTime is gone;
 *   GA_HI_OO  GA_HI with thread specialization: a second thread buckets the keys slab
 *             by slab (the slides' "sort kernels") while the main thread uploads and
 *             appends the slabs already bucketed, hiding SortTime under ExchTime.
 * Without device kernels, bucketing and the final sort run on the host and move to and
 * from the device with puts and gets to this PE (counted in SortTime). The GA variants
 * need SHMEM_SYMMETRIC_SIZE_DEVICE (about 2.1 x elements x element bytes).
 *
 * Every PE holds `elements` random keys. Phases, each timed on its own:
 *   SortTime  bucket the local keys by destination PE (counting sort), and at the end
 *             sort the keys received locally;
 *   CpyTime   stage each destination's next chunk (A_MsizeB bytes at most) into the
 *             symmetric scratch pad, as the device variants copy to the host;
 *   ExchTime  append each staged chunk to its destination: a remote fetch-add on the
 *             destination's fill counter reserves room, then a non-blocking put.
 * LB = data per PE / TotTime and UB = data per PE / ExchTime, in GiB/s, with the
 * slowest PE's times. Check verifies global order (every PE holds only its key range,
 * locally sorted), the global key count, the key sum and every element's extra words. */
#include "bench.h"

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
};

static int key_bytes; /* for the qsort comparator */

static uint64_t word_at(const unsigned char *e, int k, int word)
{
    if (word == 4) {
        uint32_t v;
        memcpy(&v, e + (size_t)k * 4, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, e + (size_t)k * 8, 8);
    return v;
}

static void set_word(unsigned char *e, int k, int word, uint64_t v)
{
    if (word == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(e + (size_t)k * 4, &w, 4);
    } else {
        memcpy(e + (size_t)k * 8, &v, 8);
    }
}

/* Extra words carry a function of the key, so the check sees elements arrive whole. */
static uint64_t extra_word(uint64_t key, int k, int word)
{
    uint64_t v = key ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull);
    return word == 4 ? (uint32_t)v : v;
}

/* Destination PE of a key: keys are split into npes equal ranges. */
static int dest_of(uint64_t key, int word, int npes)
{
    if (word == 4)
        return (int)((key * (uint64_t)npes) >> 32);
    return (int)(((unsigned __int128)key * (unsigned)npes) >> 64);
}

static int cmp_keys(const void *a, const void *b)
{
    uint64_t x = word_at(a, 0, key_bytes), y = word_at(b, 0, key_bytes);
    return x < y ? -1 : x > y;
}

/* Symmetric state: the receive table's fill counter and PE 0's check accumulators. */
static long fill;
static unsigned long total_count, sum_before, sum_after;
static long bad_pes;

enum phase { TOT, SORT, CPY, EXCH, PHASES };

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-e elements/PE] [-w word bytes 4|8] [-W words/element] [-H headroom "
            "%%]\n"
            "          [-S seed] [-a A_MsizeB: bytes per append] [-V "
            "HA_HI|GA_HI|GA_HI_OO|all]\n",
            prog);
}

enum variant { HA_HI, GA_HI, GA_HI_OO, VARIANTS };
static const char *const variant_name[VARIANTS] = { "HA_HI", "GA_HI", "GA_HI_OO" };

/* What one run shares: the parameters and this PE's keys. */
struct job {
    struct params p;
    int me, npes;
    size_t n, eb, chunk_elems, cap;
    unsigned char *table;
    double *times; /* symmetric: PHASES x npes, the times gathered on PE 0 */
};

/* Counting sort of table[lo, hi) by destination into out (slab-local layout), with
 * count[] and start[] for that slab. */
static void bucket(const struct job *j, size_t lo, size_t hi, unsigned char *out,
                   size_t *count, size_t *start)
{
    size_t fill_at[j->npes];
    memset(count, 0, (size_t)j->npes * sizeof *count);
    for (size_t i = lo; i < hi; i++)
        count[dest_of(word_at(j->table + i * j->eb, 0, j->p.word), j->p.word, j->npes)]++;
    start[0] = 0;
    for (int d = 1; d < j->npes; d++)
        start[d] = start[d - 1] + count[d - 1];
    memcpy(fill_at, start, sizeof fill_at);
    for (size_t i = lo; i < hi; i++) {
        int d = dest_of(word_at(j->table + i * j->eb, 0, j->p.word), j->p.word, j->npes);
        memcpy(out + fill_at[d]++ * j->eb, j->table + i * j->eb, j->eb);
    }
}

/* Appends count[d] elements of src (this slab's buckets, at start[d]) to every PE d in
 * chunks of chunk_elems: fetch-add on d's fill counter, then a non-blocking put. */
static int append(const struct job *j, const unsigned char *src, const size_t *count,
                  const size_t *start, unsigned char *recv)
{
    int overflow = 0;
    for (int i = 0; i < j->npes; i++) {
        int d = (j->me + 1 + i) % j->npes; /* start at a different PE on every PE */
        for (size_t k = 0; k < count[d]; k += j->chunk_elems) {
            size_t len = count[d] - k < j->chunk_elems ? count[d] - k : j->chunk_elems;
            long off = shmem_long_atomic_fetch_add(&fill, (long)len, d);
            if ((size_t)off + len <= j->cap)
                shmem_putmem_nbi(recv + (size_t)off * j->eb, src + (start[d] + k) * j->eb,
                                 len * j->eb, d);
            else
                overflow = 1;
        }
    }
    return overflow;
}

/* GA_HI_OO's bucketing thread: slab by slab, publishing each when done. */
struct slabs {
    const struct job *j;
    int nslabs;
    unsigned char *host;   /* bucketed slabs, slab s at s * slab elements */
    size_t *count, *start; /* nslabs x npes */
    int ready;             /* slabs bucketed so far (atomic) */
    double sort_time;
};

static size_t slab_lo(const struct slabs *s, int k)
{
    return s->j->n * (size_t)k / (size_t)s->nslabs;
}

static void *bucket_slabs(void *arg)
{
    struct slabs *s = arg;
    double t0 = bench_now();
    for (int k = 0; k < s->nslabs; k++) {
        size_t lo = slab_lo(s, k), hi = slab_lo(s, k + 1);
        bucket(s->j, lo, hi, s->host + lo * s->j->eb, s->count + (size_t)k * s->j->npes,
               s->start + (size_t)k * s->j->npes);
        __atomic_store_n(&s->ready, k + 1, __ATOMIC_RELEASE);
    }
    s->sort_time = bench_now() - t0;
    return NULL;
}

static int run(const struct job *j, enum variant v)
{
    size_t n = j->n, eb = j->eb, cap = j->cap;
    int me = j->me, npes = j->npes;
    int dev = v != HA_HI;
    shmem_space_t space = dev ? SHMEM_SPACE_DEVICE : SHMEM_SPACE_DEFAULT;
    size_t scratch_bytes = dev ? 0 : j->chunk_elems * eb * (size_t)npes;
    unsigned char *bucketed = malloc(n * eb), *hrecv = malloc(cap * eb);
    unsigned char *recv = shmem_space_malloc(space, cap * eb);
    unsigned char *dbuck = dev ? shmem_space_malloc(SHMEM_SPACE_DEVICE, n * eb) : NULL;
    unsigned char *scratch = dev ? NULL : shmem_malloc(scratch_bytes);
    size_t *count = calloc((size_t)npes, sizeof *count),
           *start = calloc((size_t)npes, sizeof *start);
    size_t *sent = calloc((size_t)npes, sizeof *sent);
    if (!bucketed || !hrecv || !recv || (dev && !dbuck) || (!dev && !scratch) || !count ||
        !start || !sent) {
        if (me == 0)
            fprintf(stderr, "bucket_sort %s: out of memory (raise SHMEM_SYMMETRIC_SIZE%s?)\n",
                    variant_name[v], dev ? "_DEVICE" : "");
        shmem_global_exit(1);
    }
    memset(hrecv, 0, cap * eb); /* touch the pages before timing */
    shmem_putmem(recv, hrecv, cap * eb, me);
    if (scratch)
        memset(scratch, 0, scratch_bytes);
    fill = 0;
    shmem_barrier_all();

    double t[PHASES] = { 0 }, t0 = bench_now(), ts;
    int overflow = 0;
    if (v == GA_HI_OO) {
        /* The bucketing thread runs ahead; this one uploads and appends each slab. */
        struct slabs s = { .j = j,
                           .nslabs = 8,
                           .host = bucketed,
                           .count = calloc(8 * (size_t)npes, sizeof(size_t)),
                           .start = calloc(8 * (size_t)npes, sizeof(size_t)) };
        pthread_t th;
        if (!s.count || !s.start || pthread_create(&th, NULL, bucket_slabs, &s)) {
            fprintf(stderr, "bucket_sort: cannot start the bucketing thread\n");
            shmem_global_exit(1);
        }
        for (int k = 0; k < s.nslabs; k++) {
            while (__atomic_load_n(&s.ready, __ATOMIC_ACQUIRE) <= k)
                sched_yield();
            size_t lo = slab_lo(&s, k), hi = slab_lo(&s, k + 1);
            shmem_putmem(dbuck + lo * eb, bucketed + lo * eb, (hi - lo) * eb,
                         me); /* upload */
            overflow |= append(j, dbuck + lo * eb, s.count + (size_t)k * npes,
                               s.start + (size_t)k * npes, recv);
        }
        pthread_join(th, NULL);
        shmem_quiet();
        t[SORT] += s.sort_time;
        free(s.count);
        free(s.start);
    } else {
        /* SortTime, part 1: counting sort of the local keys by destination PE. */
        ts = bench_now();
        bucket(j, 0, n, bucketed, count, start);
        if (dev)
            shmem_putmem(dbuck, bucketed, n * eb, me); /* the buckets live on the device */
        t[SORT] += bench_now() - ts;
        if (dev) {
            ts = bench_now(); /* ExchTime: straight from the device buckets */
            overflow = append(j, dbuck, count, start, recv);
            shmem_quiet();
            t[EXCH] += bench_now() - ts;
        }
        for (size_t left = dev ? 0 : n; left > 0;) {
            size_t len[npes], one[npes], at[npes];
            ts = bench_now(); /* CpyTime: stage one chunk per destination */
            for (int d = 0; d < npes; d++) {
                size_t rest = count[d] - sent[d];
                len[d] = rest < j->chunk_elems ? rest : j->chunk_elems;
                memcpy(scratch + (size_t)d * j->chunk_elems * eb,
                       bucketed + (start[d] + sent[d]) * eb, len[d] * eb);
                at[d] = (size_t)d * j->chunk_elems;
            }
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
    ts = bench_now();
    shmem_barrier_all(); /* every append to this PE has landed */
    t[EXCH] += bench_now() - ts;

    /* SortTime, part 2: sort what arrived (on the host, then back to the device). */
    size_t got = (size_t)fill < cap ? (size_t)fill : cap;
    ts = bench_now();
    shmem_getmem(hrecv, recv, got * eb, me);
    qsort(hrecv, got, eb, cmp_keys);
    if (dev)
        shmem_putmem(recv, hrecv, got * eb, me);
    t[SORT] += bench_now() - ts;
    t[TOT] = bench_now() - t0;

    /* Check: order and range here, counts and sums on PE 0. */
    int bad = overflow || (size_t)fill > cap;
    unsigned long recv_sum = 0;
    if (dev) /* what the device holds after the sort */
        shmem_getmem(hrecv, recv, got * eb, me);
    for (size_t i = 0; i < got && !bad; i++) {
        const unsigned char *e = hrecv + i * eb;
        uint64_t key = word_at(e, 0, j->p.word);
        bad |= dest_of(key, j->p.word, npes) != me;
        bad |= i > 0 && word_at(e - eb, 0, j->p.word) > key;
        for (int k = 1; k < j->p.words; k++)
            bad |= word_at(e, k, j->p.word) != extra_word(key, k, j->p.word);
        recv_sum += key;
    }
    if ((size_t)fill > cap)
        fprintf(stderr,
                "bucket_sort: PE %d received %ld elements, room for %zu: raise the headroom "
                "(-H)\n",
                me, fill, cap);
    shmem_ulong_atomic_add(&total_count, (unsigned long)got, 0);
    shmem_ulong_atomic_add(&sum_after, recv_sum, 0);
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
        passed = bad_pes == 0 && total_count == n * (size_t)npes && sum_after == sum_before;
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
        total_count = sum_after = 0;
        bad_pes = 0;
    }
    shmem_barrier_all();
    if (scratch)
        shmem_free(scratch);
    if (dbuck)
        shmem_free(dbuck);
    shmem_free(recv);
    free(sent);
    free(start);
    free(count);
    free(hrecv);
    free(bucketed);
    return passed;
}

static int passed_all = 1;

int main(int argc, char **argv)
{
    struct job j = { .p = { 1 << 20, 8, 1, 2.0, 1, 1 << 20 } };
    struct params *p = &j.p;
    const char *which = "HA_HI";
    int c;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    while ((c = getopt(argc, argv, "e:w:W:H:S:a:V:h")) != -1) {
        switch (c) {
        case 'e': p->elements = (long)bench_parse_size(optarg); break;
        case 'w': p->word = atoi(optarg); break;
        case 'W': p->words = atoi(optarg); break;
        case 'H': p->headroom = atof(optarg); break;
        case 'S': p->seed = strtoull(optarg, NULL, 0); break;
        case 'a': p->chunk = bench_parse_size(optarg); break;
        case 'V': which = optarg; break;
        default:
            if (me == 0)
                usage(argv[0]);
            shmem_finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    int want[VARIANTS] = { 0 }, any = 0;
    for (int v = 0; v < VARIANTS; v++)
        any |= want[v] = !strcmp(which, "all") || !strcmp(which, variant_name[v]);
    size_t eb = (size_t)p->word * (size_t)p->words;
    if (p->elements < 1 || (p->word != 4 && p->word != 8) || p->words < 1 ||
        p->headroom < 0 || p->chunk < eb || !any) {
        if (me == 0) {
            usage(argv[0]);
            fprintf(stderr,
                    "need elements >= 1, word 4 or 8, words >= 1, headroom >= 0, "
                    "A_MsizeB >= one element, a known variant\n");
        }
        shmem_finalize();
        return 2;
    }
    key_bytes = p->word;
    j.me = me;
    j.npes = npes;
    j.eb = eb;
    j.n = (size_t)p->elements;
    j.chunk_elems = p->chunk / eb;
    j.cap = j.n + (size_t)((double)j.n * p->headroom / 100.0);
    j.table = malloc(j.n * eb);
    j.times = shmem_malloc(sizeof(double) * PHASES * (size_t)npes);
    if (!j.table || !j.times) {
        if (me == 0)
            fprintf(stderr, "bucket_sort: out of memory (raise SHMEM_SYMMETRIC_SIZE?)\n");
        shmem_global_exit(1);
    }
    uint64_t state = p->seed * 0x100000001b3ull + (uint64_t)me * 0x9e3779b97f4a7c15ull;
    unsigned long my_sum = 0;
    for (size_t i = 0; i < j.n; i++) {
        uint64_t key = bench_rand(&state);
        if (p->word == 4)
            key >>= 32;
        unsigned char *e = j.table + i * eb;
        set_word(e, 0, p->word, key);
        for (int k = 1; k < p->words; k++)
            set_word(e, k, p->word, extra_word(key, k, p->word));
        my_sum += key;
    }
    shmem_ulong_atomic_add(&sum_before, my_sum, 0);
    shmem_barrier_all();

    if (me == 0) {
        double mib = 1024.0 * 1024.0;
        size_t scratch_bytes = j.chunk_elems * eb * (size_t)npes;
        printf("*****\n* A47 bucket sort (append pattern)\n* NPES = %d\n"
               "* Est Num Elements per PE = %ld\n* sizeof(ELEMENT_TYPE) Word = %d\n"
               "* Words per Element = %d\n* Headroom = %.2f %%\n* OMP Threads = 1\n"
               "* Rand Seed = %llu\n* table array size/PE (MiB) = %.3f\n"
               "* Scratch Pad size/PE (MiB) = %.3f\n* Est Memory footprint/PE (MiB) = "
               "%.3f\n\n",
               npes, p->elements, p->word, p->words, p->headroom, (unsigned long long)p->seed,
               (double)(j.n * eb) / mib, (double)scratch_bytes / mib,
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
    free(j.table);
    shmem_finalize();
    return passed_all ? 0 : 1;
}
