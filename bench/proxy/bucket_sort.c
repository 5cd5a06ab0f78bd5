/* Distributed bucket sort with the append pattern (seed slides "A47", paper 002
 * section 7.1), host-allocated and host-initiated: the HA_HI variant.
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct params {
    long elements;     /* per PE */
    int word;          /* bytes per word: 4 or 8 */
    int words;         /* words per element; the first is the key */
    double headroom;   /* percent of extra room in each PE's receive table */
    uint64_t seed;
    size_t chunk;      /* A_MsizeB: bytes appended per put at most */
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
            "usage: %s [-e elements/PE] [-w word bytes 4|8] [-W words/element] [-H headroom %%]\n"
            "          [-S seed] [-a A_MsizeB: bytes per append]\n", prog);
}

int main(int argc, char **argv)
{
    struct params p = {1 << 20, 8, 1, 2.0, 1, 1 << 20};
    int c;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    while ((c = getopt(argc, argv, "e:w:W:H:S:a:h")) != -1) {
        switch (c) {
        case 'e': p.elements = (long)bench_parse_size(optarg); break;
        case 'w': p.word = atoi(optarg); break;
        case 'W': p.words = atoi(optarg); break;
        case 'H': p.headroom = atof(optarg); break;
        case 'S': p.seed = strtoull(optarg, NULL, 0); break;
        case 'a': p.chunk = bench_parse_size(optarg); break;
        default:
            if (me == 0)
                usage(argv[0]);
            shmem_finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    size_t eb = (size_t)p.word * (size_t)p.words;
    if (p.elements < 1 || (p.word != 4 && p.word != 8) || p.words < 1 || p.headroom < 0 ||
        p.chunk < eb) {
        if (me == 0) {
            usage(argv[0]);
            fprintf(stderr, "need elements >= 1, word 4 or 8, words >= 1, headroom >= 0, "
                            "A_MsizeB >= one element\n");
        }
        shmem_finalize();
        return 2;
    }
    key_bytes = p.word;
    size_t n = (size_t)p.elements, chunk_elems = p.chunk / eb;
    size_t cap = n + (size_t)((double)n * p.headroom / 100.0);
    size_t scratch_bytes = chunk_elems * eb * (size_t)npes;

    unsigned char *table = malloc(n * eb), *bucketed = malloc(n * eb);
    unsigned char *recv = shmem_malloc(cap * eb), *scratch = shmem_malloc(scratch_bytes);
    double *times = shmem_malloc(sizeof(double) * PHASES * (size_t)npes);
    size_t *count = calloc((size_t)npes, sizeof *count), *start = calloc((size_t)npes, sizeof *start);
    size_t *sent = calloc((size_t)npes, sizeof *sent);
    if (!table || !bucketed || !recv || !scratch || !times || !count || !start || !sent) {
        if (me == 0)
            fprintf(stderr, "bucket_sort: out of memory (raise SHMEM_SYMMETRIC_SIZE?)\n");
        shmem_global_exit(1);
    }
    uint64_t state = p.seed * 0x100000001b3ull + (uint64_t)me * 0x9e3779b97f4a7c15ull;
    unsigned long my_sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = bench_rand(&state);
        if (p.word == 4)
            key >>= 32;
        unsigned char *e = table + i * eb;
        set_word(e, 0, p.word, key);
        for (int k = 1; k < p.words; k++)
            set_word(e, k, p.word, extra_word(key, k, p.word));
        my_sum += key;
    }
    shmem_ulong_atomic_add(&sum_before, my_sum, 0);
    memset(recv, 0, cap * eb); /* touch the pages before timing */
    memset(scratch, 0, scratch_bytes);
    shmem_barrier_all();

    double t[PHASES] = {0}, t0 = bench_now(), ts;
    /* SortTime, part 1: counting sort of the local keys by destination PE. */
    ts = bench_now();
    for (size_t i = 0; i < n; i++)
        count[dest_of(word_at(table + i * eb, 0, p.word), p.word, npes)]++;
    for (int d = 1; d < npes; d++)
        start[d] = start[d - 1] + count[d - 1];
    for (size_t i = 0; i < n; i++) {
        int d = dest_of(word_at(table + i * eb, 0, p.word), p.word, npes);
        memcpy(bucketed + (start[d] + sent[d]++) * eb, table + i * eb, eb);
    }
    memset(sent, 0, (size_t)npes * sizeof *sent);
    t[SORT] += bench_now() - ts;

    int overflow = 0;
    for (size_t left = n; left > 0;) {
        size_t len[npes];
        ts = bench_now(); /* CpyTime: stage one chunk per destination */
        for (int i = 0; i < npes; i++) {
            int d = (me + 1 + i) % npes; /* start at a different PE on every PE */
            size_t rest = count[d] - sent[d];
            len[d] = rest < chunk_elems ? rest : chunk_elems;
            memcpy(scratch + (size_t)d * chunk_elems * eb, bucketed + (start[d] + sent[d]) * eb,
                   len[d] * eb);
        }
        t[CPY] += bench_now() - ts;
        ts = bench_now(); /* ExchTime: reserve room remotely, then put */
        for (int i = 0; i < npes; i++) {
            int d = (me + 1 + i) % npes;
            if (len[d] == 0)
                continue;
            long off = shmem_long_atomic_fetch_add(&fill, (long)len[d], d);
            if ((size_t)off + len[d] <= cap)
                shmem_putmem_nbi(recv + (size_t)off * eb, scratch + (size_t)d * chunk_elems * eb,
                                 len[d] * eb, d);
            else
                overflow = 1;
            sent[d] += len[d];
            left -= len[d];
        }
        shmem_quiet(); /* the scratch pad is restaged next round */
        t[EXCH] += bench_now() - ts;
    }
    ts = bench_now();
    shmem_barrier_all(); /* every append to this PE has landed */
    t[EXCH] += bench_now() - ts;

    /* SortTime, part 2: sort what arrived. */
    size_t got = (size_t)fill < cap ? (size_t)fill : cap;
    ts = bench_now();
    qsort(recv, got, eb, cmp_keys);
    t[SORT] += bench_now() - ts;
    t[TOT] = bench_now() - t0;

    /* Check: order and range here, counts and sums on PE 0. */
    int bad = overflow || (size_t)fill > cap;
    unsigned long recv_sum = 0;
    for (size_t i = 0; i < got && !bad; i++) {
        const unsigned char *e = recv + i * eb;
        uint64_t key = word_at(e, 0, p.word);
        bad |= dest_of(key, p.word, npes) != me;
        bad |= i > 0 && word_at(e - eb, 0, p.word) > key;
        for (int k = 1; k < p.words; k++)
            bad |= word_at(e, k, p.word) != extra_word(key, k, p.word);
        recv_sum += key;
    }
    if ((size_t)fill > cap)
        fprintf(stderr, "bucket_sort: PE %d received %ld elements, room for %zu: raise the headroom (-H)\n",
                me, fill, cap);
    shmem_ulong_atomic_add(&total_count, (unsigned long)got, 0);
    shmem_ulong_atomic_add(&sum_after, recv_sum, 0);
    if (bad)
        shmem_long_atomic_inc(&bad_pes, 0);
    for (int ph = 0; ph < PHASES; ph++)
        shmem_double_p(&times[ph * npes + me], t[ph], 0);
    shmem_barrier_all();

    int passed = 1;
    if (me == 0) {
        double worst[PHASES] = {0};
        for (int ph = 0; ph < PHASES; ph++)
            for (int pe = 0; pe < npes; pe++)
                worst[ph] = times[ph * npes + pe] > worst[ph] ? times[ph * npes + pe] : worst[ph];
        passed = bad_pes == 0 && total_count == n * (size_t)npes && sum_after == sum_before;
        double gib = (double)n * (double)eb / (1024.0 * 1024.0 * 1024.0), mib = 1024.0 * 1024.0;
        printf("*****\n* A47 bucket sort (append pattern)\n* NPES = %d\n"
               "* Est Num Elements per PE = %ld\n* sizeof(ELEMENT_TYPE) Word = %d\n"
               "* Words per Element = %d\n* Headroom = %.2f %%\n* OMP Threads = 1\n"
               "* Rand Seed = %llu\n* table array size/PE (MiB) = %.3f\n"
               "* Scratch Pad size/PE (MiB) = %.3f\n* Est Memory footprint/PE (MiB) = %.3f\n\n",
               npes, p.elements, p.word, p.words, p.headroom, (unsigned long long)p.seed,
               (double)(n * eb) / mib, (double)scratch_bytes / mib,
               (double)(2 * n * eb + cap * eb + scratch_bytes) / mib);
        printf("Test\tA_MsizeB\tTotTime\tSortTime\tCpyTime\tExchTime\tLB_GiB/s/PE\tUB_GiB/s/PE\tCheck\n");
        printf("HA_HI\t%zu\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%s\n", chunk_elems * eb, worst[TOT],
               worst[SORT], worst[CPY], worst[EXCH], gib / worst[TOT], gib / worst[EXCH],
               passed ? "PASSED" : "FAILED");
        printf("\n%s\n\n*****\n", passed ? "A47 has sorted things out!" : "A47 did not sort things out.");
        static const char *const metric[PHASES] = {"tot_s", "sort_s", "cpy_s", "exch_s"};
        for (int ph = 0; ph < PHASES; ph++)
            bench_result("bucket_sort", chunk_elems * eb, metric[ph], worst[ph]);
        bench_result("bucket_sort", chunk_elems * eb, "lb_GiBps", gib / worst[TOT]);
        bench_result("bucket_sort", chunk_elems * eb, "ub_GiBps", gib / worst[EXCH]);
    }
    shmem_barrier_all();
    shmem_free(times);
    shmem_free(scratch);
    shmem_free(recv);
    free(sent);
    free(start);
    free(count);
    free(bucketed);
    free(table);
    shmem_finalize();
    return passed ? 0 : 1;
}
