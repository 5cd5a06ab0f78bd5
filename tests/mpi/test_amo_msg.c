/* AMOs over the MPI transport, whichever way SHOAL_MPI_AMO sends them:
 *   compute  every other PE fetch-adds, increments and sets words on PE 0 while PE 0
 *            computes without calling SHMEM (plain loads of its own memory), for at
 *            most 20 s: the AMOs must complete meanwhile, the totals be exact;
 *   fence    PE i -> PE i+1: puts, fence, an AMO that announces them; and an AMO,
 *            fence, a put that announces it. The target, reading the announcement
 *            first, must find what came before it;
 *   nbi      PE i -> PE i+1: more fetch-adds _nbi than a context keeps in flight,
 *            completed by quiet, must have fetched each count once; adds then
 *            shmem_pe_quiet toward it, then a put that announces them: the target must
 *            find every add applied when the announcement arrives.
 *   stall    PE 1 stops (SIGSTOP, its AMO thread with it) and PE 0 then fetches from
 *            it: PE 0 must end the job after SHOAL_MPI_STALL_TIMEOUT, naming PE 1,
 *            rather than wait for ever. A child of PE 1 lets it go on after 2 s, so
 *            that the launcher's signals reach it at once.
 * Several modes may follow each other in one run. */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define ROUNDS 100
#define WORDS 512

static long counter, incs, last_set;    /* symmetric: compute's targets on PE 0 */
static long data[WORDS], mark;          /* symmetric: fence's put-then-AMO */
static long amo_count, put_mark;        /* symmetric: fence's AMO-then-put */
static long nbi_word, pq_word, pq_mark; /* symmetric: nbi's targets */

#define NBI 200 /* above the 64 fetching _nbi AMOs a context keeps in flight */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void compute(int me, int n)
{
    long expect = (long)(n - 1) * ROUNDS;
    shmem_barrier_all();
    if (me != 0) {
        for (int i = 0; i < ROUNDS; i++) {
            long old = shmem_long_atomic_fetch_add(&counter, 1, 0);
            if (old < 0 || old >= expect)
                check_failed(__FILE__, __LINE__, "fetch_add from PE 0 returned %ld", old);
            shmem_long_atomic_inc(&incs, 0);
        }
        shmem_long_atomic_set(&last_set, (long)me, 0);
        shmem_quiet();
    } else {
        /* No SHMEM call here: only the progress thread serves the others. */
        volatile long *c = &counter, *in = &incs;
        double end = now() + 20;
        unsigned long work = 0;
        while ((*c != expect || *in != expect) && now() < end)
            work += (unsigned long)*c * 7 + 1;
        if (*c != expect || *in != expect)
            check_failed(__FILE__, __LINE__,
                         "shmem_long_atomic_fetch_add/inc: PE 0 computed for 20 s without "
                         "calling SHMEM and saw %ld fetch-adds and %ld increments of %ld: "
                         "its peers' AMOs did not progress (SHOAL_MPI_AMO=%s)",
                         *c, *in, expect,
                         getenv("SHOAL_MPI_AMO") ? getenv("SHOAL_MPI_AMO") : "auto");
        (void)work;
    }
    shmem_barrier_all();
    if (me == 0 && (last_set < 1 || last_set >= n))
        check_failed(__FILE__, __LINE__, "atomic_set left %ld, not a PE number in 1..%d",
                     last_set, n - 1);
}

static void fence(int me, int n)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    shmem_barrier_all();
    long src[WORDS];
    for (long r = 1; r <= ROUNDS; r++) {
        for (int j = 0; j < WORDS; j++)
            src[j] = r;
        shmem_long_put(data, src, WORDS, to);
        shmem_fence();
        shmem_long_atomic_set(&mark, r, to);
        shmem_long_atomic_add(&amo_count, 1, to);
        shmem_fence();
        shmem_long_p(&put_mark, r, to);
        /* What the previous PE announced so far must be in place. */
        long m = shmem_long_atomic_fetch(&mark, me);
        for (int j = 0; j < WORDS; j += WORDS / 8) {
            long d = ((volatile long *)data)[j];
            if (d < m)
                check_failed(__FILE__, __LINE__,
                             "round %ld: PE %d's AMO after shmem_fence arrived before its "
                             "put (data[%d] = %ld, announced %ld)",
                             r, from, j, d, m);
        }
        long p = shmem_long_atomic_fetch(&put_mark, me);
        long a = shmem_long_atomic_fetch(&amo_count, me);
        if (a < p)
            check_failed(__FILE__, __LINE__,
                         "round %ld: PE %d's put after shmem_fence arrived before its AMO "
                         "(%ld AMOs, put announced %ld)",
                         r, from, a, p);
    }
    shmem_barrier_all();
    if (mark != ROUNDS || amo_count != ROUNDS || put_mark != ROUNDS ||
        data[WORDS - 1] != ROUNDS)
        check_failed(__FILE__, __LINE__,
                     "final mark %ld, AMOs %ld, put mark %ld, data %ld; "
                     "expected %d each",
                     mark, amo_count, put_mark, data[WORDS - 1], ROUNDS);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void nbi(int me, int n)
{
    int to = (me + 1) % n;
    static long got[NBI]; /* not symmetric: any local memory may take a fetch */
    shmem_barrier_all();
    for (int i = 0; i < NBI; i++)
        shmem_long_atomic_fetch_add_nbi(&got[i], &nbi_word, 1, to);
    shmem_quiet();
    qsort(got, NBI, sizeof got[0], cmp_long);
    for (long i = 0; i < NBI; i++)
        if (got[i] != i)
            check_failed(__FILE__, __LINE__,
                         "shmem_long_atomic_fetch_add_nbi to PE %d: after shmem_quiet the "
                         "fetched counts sorted have %ld at %ld (each of 0..%d once "
                         "expected)",
                         to, got[i], i, NBI - 1);
    for (int i = 0; i < NBI; i++)
        shmem_long_atomic_add(&pq_word, 1, to);
    shmem_pe_quiet(&to, 1);
    shmem_long_p(&pq_mark, 1, to);
    shmem_long_wait_until(&pq_mark, SHMEM_CMP_EQ, 1);
    long seen = shmem_long_atomic_fetch(&pq_word, me);
    if (seen != NBI)
        check_failed(__FILE__, __LINE__,
                     "shmem_pe_quiet: the put after it arrived before the adds before it "
                     "(%ld of %d applied)",
                     seen, NBI);
    shmem_barrier_all();
}

static void stall(int me)
{
    static int word; /* symmetric */
    shmem_barrier_all();
    if (me == 1) {
        pid_t parent = getpid();
        if (fork() == 0) {
            sleep(2);
            kill(parent, SIGCONT);
            _exit(0);
        }
        raise(SIGSTOP);
    } else if (me == 0) {
        struct timespec t = { 0, 300000000 }; /* for PE 1 to have stopped */
        nanosleep(&t, NULL);
        int v = shmem_int_atomic_fetch(&word, 1);
        check_failed(__FILE__, __LINE__,
                     "shmem_int_atomic_fetch from a stopped PE 1 returned %d instead of "
                     "ending the job",
                     v);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int a = 1; a < argc || a == 1; a++) {
        const char *what = a < argc ? argv[a] : "";
        if (!strcmp(what, "compute"))
            compute(me, n);
        else if (!strcmp(what, "fence"))
            fence(me, n);
        else if (!strcmp(what, "nbi"))
            nbi(me, n);
        else if (!strcmp(what, "stall"))
            stall(me);
        else {
            fprintf(stderr, "usage: %s compute|fence|nbi|stall...\n", argv[0]);
            shmem_global_exit(2);
        }
        if (me == 0)
            printf("ok %s\n", what);
    }
    shmem_finalize();
    return 0;
}
