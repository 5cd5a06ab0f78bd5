/* Random access over a large symmetric heap, the work huge pages are for: each PE
 * fills a table of -t bytes (1 GiB by default) in its heap, then
 *   fill        the first touch of the whole table (every page faulted in), ms of
 *               the PE's CPU time;
 *   ptr_chase   dependent loads through shmem_ptr at random places of the right
 *               neighbour's table (skipped where the neighbour is on another node):
 *               each loaded value is the next index, so every load waits for the
 *               last, TLB miss included (the mapping's page faults are taken
 *               before, untimed); ns of CPU time per load;
 *   amo_add     non-fetching atomic adds to random elements of the right
 *               neighbour's table, then quiet; millions per second;
 *   amo_fadd    blocking fetch-adds likewise; us each.
 * Afterwards every PE replays its left neighbour's add streams, takes them back out
 * of its own table and checks the whole table against its fill, and checks the
 * chase's last index and the fetched values against the fill: a wrong load or AMO
 * ends the run with a nonzero status. The heap needs -t and a little more:
 * SHMEM_SYMMETRIC_SIZE=1040M for the default table. The two local phases count the
 * thread's CPU time (page faults included), not the clock's, so that on a node busy
 * with other work the time the PE waited for a CPU stays out of them; the AMOs wait
 * on the target, so they take the clock.
 *   heap_random [-t bytes] [-l loads] [-a adds] [-f fetch_adds] */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The fill: a value fixed by PE and index, which also names the next index to chase. */
static inline uint64_t cell(int pe, uint64_t i)
{
    uint64_t s = i ^ ((uint64_t)pe << 40);
    return bench_rand(&s);
}

/* Seconds of this thread's CPU time, the kernel's work for it included. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* An index in [0, n) from 64 random bits, without a division. */
static inline uint64_t scale(uint64_t r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

static void fail(const char *what, uint64_t i, uint64_t got, uint64_t want)
{
    fprintf(stderr, "heap_random: PE %d: %s at element %llu: %llu, expected %llu\n",
            shmem_my_pe(), what, (unsigned long long)i, (unsigned long long)got,
            (unsigned long long)want);
    shmem_global_exit(1);
}

int main(int argc, char **argv)
{
    size_t bytes = (size_t)1 << 30;
    long loads = 2000000, adds = 200000, fadds = 5000;
    int c;
    while ((c = getopt(argc, argv, "t:l:a:f:h")) != -1) {
        switch (c) {
        case 't': bytes = bench_parse_size(optarg); break;
        case 'l': loads = atol(optarg); break;
        case 'a': adds = atol(optarg); break;
        case 'f': fadds = atol(optarg); break;
        default:
            fprintf(stderr,
                    "usage: %s [-t table_bytes] [-l loads] [-a adds] [-f fetch_adds]\n",
                    argv[0]);
            return c == 'h' ? 0 : 2;
        }
    }
    if (bytes < 4096 || loads < 1 || adds < 0 || fadds < 0) {
        fprintf(stderr,
                "%s: need a table of at least 4K, loads >= 1, adds, fetch_adds >= 0\n",
                argv[0]);
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    uint64_t nl = bytes / sizeof(uint64_t);
    uint64_t *t = shmem_malloc(nl * sizeof(uint64_t));
    if (!t) {
        fprintf(stderr,
                "heap_random: PE %d: no room for a %zu-byte table; raise "
                "SHMEM_SYMMETRIC_SIZE above it\n",
                me, bytes);
        shmem_global_exit(1);
    }
    if (me == 0)
        bench_header("Random access over the symmetric heap", "");

    shmem_barrier_all();
    double t0 = cpu_now();
    for (uint64_t i = 0; i < nl; i++)
        t[i] = cell(me, i);
    double fill = bench_slowest(cpu_now() - t0);
    if (me == 0)
        bench_result("heap_random.fill", bytes, "cpu_ms", fill * 1e3);

    const uint64_t *rp = shmem_ptr(t, right);
    int chase = rp != NULL;
    shmem_barrier_all();
    double s = 0;
    if (chase) {
        /* This PE's mapping of the neighbour's table faults in page by page on first
         * use; touching it first leaves the chase the TLB's cost alone. */
        volatile uint64_t sink = 0;
        for (uint64_t i = 0; i < nl; i += 4096 / sizeof(uint64_t))
            sink += rp[i];
        (void)sink;
        uint64_t idx = scale(cell(me, 12345), nl);
        t0 = cpu_now();
        for (long k = 0; k < loads; k++)
            idx = scale(rp[idx], nl);
        s = cpu_now() - t0;
        uint64_t want = scale(cell(me, 12345), nl);
        for (long k = 0; k < loads; k++)
            want = scale(cell(right, want), nl);
        if (want != idx)
            fail("ptr_chase's last index", (uint64_t)loads, idx, want);
    }
    /* Collective, so every PE takes part; PE 0's neighbour says whether there is a row. */
    s = bench_slowest(s);
    if (me == 0 && chase)
        bench_result("heap_random.ptr_chase", bytes, "cpu_ns", s / (double)loads * 1e9);

    shmem_barrier_all();
    uint64_t st = 0x5eed0000u + (uint64_t)me;
    t0 = bench_now();
    for (long k = 0; k < adds; k++)
        shmem_uint64_atomic_add(&t[scale(bench_rand(&st), nl)], 1, right);
    shmem_quiet();
    s = bench_slowest(bench_now() - t0);
    if (me == 0 && adds)
        bench_result("heap_random.amo_add", bytes, "Mops/s", (double)adds / s * 1e-6);

    /* Fetch-adds of 0: the values fetched are the fill plus the adds already there,
     * so they are checked after the adds are taken back out. */
    shmem_barrier_all();
    uint64_t fs = 0xfadd0000u + (uint64_t)me;
    t0 = bench_now();
    for (long k = 0; k < fadds; k++) {
        uint64_t i = scale(bench_rand(&fs), nl);
        uint64_t v = shmem_uint64_atomic_fetch_add(&t[i], 0, right);
        if (v - cell(right, i) > (uint64_t)adds)
            fail("amo_fadd fetched a value neither the fill nor the fill plus this PE's adds",
                 i, v, cell(right, i));
    }
    s = bench_slowest(bench_now() - t0);
    if (me == 0 && fadds)
        bench_result("heap_random.amo_fadd", bytes, "us", s / (double)fadds * 1e6);

    shmem_barrier_all();
    st = 0x5eed0000u + (uint64_t)left;
    for (long k = 0; k < adds; k++)
        t[scale(bench_rand(&st), nl)] -= 1;
    for (uint64_t i = 0; i < nl; i++)
        if (t[i] != cell(me, i))
            fail("table after the adds were taken back", i, t[i], cell(me, i));
    shmem_barrier_all();
    if (me == 0)
        printf("heap_random: %d PEs, %zu-byte table: checks passed%s\n", n, bytes,
               chase ? "" : " (no shmem_ptr to the neighbour: no ptr_chase)");
    shmem_free(t);
    shmem_finalize();
    return 0;
}
