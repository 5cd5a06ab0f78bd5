/* Progress under manual-progress providers (tcp): PE 0 waits in wait_until
 * while every other PE gets a large buffer from it and adds to its counter,
 * all of which need PE 0's endpoint to move; only then do they release it.
 * With argument "compute", PE 0 instead spins on plain loads without calling
 * Shoal: only the progress thread (on by default for manual-progress providers,
 * SHMEM_OFI_PROGRESS_THREAD=1 forces it) serves them. With "busy_gets", PE 0
 * computes (floating-point work between plain loads of the release counter)
 * while every other PE makes many small blocking gets from it, each of a value
 * it can predict: the round trips a progress thread that shares PE 0's core
 * must be woken for, one by one; then each PE finds its progress thread (named
 * shoal-progress) and checks its priority against its own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define LEN (512 * 1024)
#define WORDS 64
#define GETS 300

static long released, served;
static long words[WORDS];

/* What PE 0 holds in words[i]. */
static long word_value(int i)
{
    return 1000003L * (i + 1) ^ 0x5a5a;
}

/* PE 0 computes until every peer has released it; returns its result so the
 * work cannot be dropped. It computes one round at least: with an
 * auto-progress provider the peers may have released it before it starts. */
static double compute_until_released(int npes)
{
    volatile double x = 1.0;
    do {
        for (int k = 0; k < 1000; k++)
            x = x * 1.0000001 + 1e-9;
    } while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) < npes - 1);
    return x;
}

static int nice_at_start; /* this PE's thread's, before shmem_init */

/* The id of this process's thread named shoal-progress, or 0. */
static long progress_thread(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    long tid = 0;
    for (struct dirent *e; !tid && (e = readdir(d));) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] == '.' ? NULL : fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f) && strcmp(comm, "shoal-progress\n") == 0)
            tid = atol(e->d_name);
        fclose(f);
    }
    closedir(d);
    return tid;
}

/* This PE's progress thread (it names itself once its priority is set; looked for
 * up to 10 s, as under load it may start late) leads this PE's thread by up to 10
 * nice levels (docs/transports.md), raised itself or, with SHMEM_OFI_LOWER_PE, by the
 * PE's thread lowered; by none where PEs share cores; never the other way. Prints
 * the levels for lower_pe.sh, which knows which to expect. */
static void check_progress_priority(int me)
{
    long tid = 0;
    for (int tries = 0; tries < 1000 && !(tid = progress_thread()); tries++)
        usleep(10000);
    CHECK(tid != 0);
    errno = 0;
    int thread = getpriority(PRIO_PROCESS, (id_t)tid);
    int pe = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    CHECK_EQ(errno, 0);
    CHECK(thread <= nice_at_start && pe >= nice_at_start);
    CHECK(pe - thread >= 0 && pe - thread <= 10); /* short of 10: RLIMIT_NICE or a bound */
    printf("progress priority on PE %d: thread %d, PE %d, PE at start %d\n", me, thread, pe,
           nice_at_start);
}

static void busy_gets(int me, int npes)
{
    if (me == 0) {
        for (int i = 0; i < WORDS; i++)
            words[i] = word_value(i);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK(compute_until_released(npes) > 1.0);
    } else {
        for (int k = 0; k < GETS; k++) {
            int i = (k * 7 + me) % WORDS;
            CHECK_EQ(shmem_long_g(&words[i], 0), word_value(i));
        }
        shmem_long_atomic_inc(&released, 0);
    }
    check_progress_priority(me);
    shmem_barrier_all();
    if (me == 0)
        printf("test_ofi_progress (busy_gets): %d gets by each of %d PEs from a computing "
               "PE 0 OK on %d PEs\n",
               GETS, npes - 1, npes);
}

int main(int argc, char **argv)
{
    nice_at_start = getpriority(PRIO_PROCESS, 0);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (argc > 1 && strcmp(argv[1], "busy_gets") == 0) {
        busy_gets(me, npes);
        shmem_finalize();
        return 0;
    }
    int compute = argc > 1 && strcmp(argv[1], "compute") == 0;
    unsigned char *data = test_malloc(LEN);
    memset(data, 0x5a + me, LEN);
    shmem_barrier_all();
    if (me == 0) {
        if (compute) {
            while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) < npes - 1)
                ; /* no Shoal call: the progress thread serves the peers */
        } else {
            shmem_long_wait_until(&released, SHMEM_CMP_EQ, npes - 1);
        }
        CHECK_EQ(served, npes - 1);
    } else {
        unsigned char *buf = malloc(LEN);
        CHECK(buf != NULL);
        shmem_getmem(buf, data, LEN, 0);
        for (size_t i = 0; i < LEN; i++)
            CHECK_EQ(buf[i], 0x5a);
        shmem_long_atomic_inc(&served, 0);
        shmem_quiet();
        shmem_long_atomic_inc(&released, 0);
        free(buf);
    }
    shmem_barrier_all();
    shmem_free(data);
    if (me == 0)
        printf("test_ofi_progress (%s): peers served while PE 0 %s OK on %d PEs\n",
               compute ? "compute" : "wait", compute ? "computes" : "waits", npes);
    shmem_finalize();
    return 0;
}
