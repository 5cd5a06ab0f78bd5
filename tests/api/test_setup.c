/* Library setup and queries. argv[1] picks the mode:
 *   (none)     shmem_init, PE numbering, accessibility, version and name queries,
 *              query_initialized before and after, shmem_finalize
 *   thread     shmem_init_thread(SHMEM_THREAD_FUNNELED) and shmem_query_thread
 *   reinit     repeated shmem_init/shmem_finalize (1.6: the second init counts; only
 *              the last finalize tears the library down)
 *   start_pes  start_pes(0), _my_pe/_num_pes, and the implied finalize at exit
 * The SHMEM_INFO / SHMEM_VERSION banners are checked by amo.cmake through
 * test_errors.sh, on this program's default mode. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static int ids[2 * 1024]; /* global: [2 * pe] my_pe as seen by pe, [2 * pe + 1] its n_pes */
static long counter;

static int initialized(void)
{
    int i = -1;
    shmem_query_initialized(&i);
    CHECK(i == 0 || i == 1);
    return i;
}

/* Every PE agrees on the numbering: 0..n-1, once each, and on n. */
static void check_numbering(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n >= 1 && n <= 1024);
    CHECK(me >= 0 && me < n);
    CHECK_EQ(_my_pe(), me);
    CHECK_EQ(_num_pes(), n);
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        shmem_int_atomic_set(&ids[2 * me], me, pe);
        shmem_int_atomic_set(&ids[2 * me + 1], n, pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        CHECK_EQ(ids[2 * pe], pe);
        CHECK_EQ(ids[2 * pe + 1], n);
    }
    shmem_barrier_all();
}

static void check_queries(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int pe = 0; pe < n; pe++)
        CHECK_EQ(shmem_pe_accessible(pe), 1);
    CHECK_EQ(shmem_pe_accessible(-1), 0);
    CHECK_EQ(shmem_pe_accessible(n), 0);
    CHECK_EQ(shmem_pe_accessible(n + 100), 0);
    int local = 0;
    CHECK_EQ(shmem_addr_accessible(&counter, (me + 1) % n), 1);
    CHECK_EQ(shmem_addr_accessible(&local, (me + 1) % n), 0);

    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK_EQ(major, SHMEM_MAJOR_VERSION);
    CHECK_EQ(minor, SHMEM_MINOR_VERSION);
    CHECK(major == 1 && minor >= 5);
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    CHECK(memchr(name, '\0', sizeof name) != NULL);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);

    int provided = -1;
    shmem_query_thread(&provided);
    CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE);
}

/* The library works: an AMO on every PE and a barrier. */
static void check_working(void)
{
    int n = shmem_n_pes();
    counter = 0;
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        shmem_long_atomic_inc(&counter, pe);
    shmem_barrier_all();
    CHECK_EQ(counter, n);
    long *h = test_malloc(sizeof(long));
    shmem_free(h);
    shmem_barrier_all();
}

static int mode_default(void)
{
    CHECK(initialized() == 0);
    shmem_init();
    CHECK(initialized() == 1);
    check_numbering();
    check_queries();
    check_working();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_finalize();
    CHECK(initialized() == 0);
    if (me == 0)
        printf("test_setup: %d PEs OK\n", n);
    return 0;
}

static int mode_thread(void)
{
    int provided = -1;
    CHECK(initialized() == 0);
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided), 0);
    CHECK(initialized() == 1);
    CHECK(provided >= SHMEM_THREAD_FUNNELED && provided <= SHMEM_THREAD_MULTIPLE);
    int q = -1;
    shmem_query_thread(&q);
    CHECK_EQ(q, provided);
    check_numbering();
    check_working();
    /* a second init_thread only counts; the level stays */
    int again = -1;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &again), 0);
    CHECK(again >= SHMEM_THREAD_SINGLE && again <= SHMEM_THREAD_MULTIPLE);
    shmem_query_thread(&q);
    CHECK_EQ(q, provided);
    shmem_finalize();
    CHECK(initialized() == 1);
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_finalize();
    CHECK(initialized() == 0);
    if (me == 0)
        printf("test_setup thread: %d PEs OK (provided %d)\n", n, provided);
    return 0;
}

static int mode_reinit(void)
{
    shmem_init();
    shmem_init(); /* counts */
    CHECK(initialized() == 1);
    check_numbering();
    shmem_finalize(); /* one of two: still up */
    CHECK(initialized() == 1);
    check_numbering();
    check_queries();
    check_working();
    shmem_init(); /* up to two again */
    shmem_finalize();
    CHECK(initialized() == 1);
    check_working();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_finalize(); /* the last one */
    CHECK(initialized() == 0);
    if (me == 0)
        printf("test_setup reinit: %d PEs OK\n", n);
    return 0;
}

static int mode_start_pes(void)
{
    CHECK(initialized() == 0);
    start_pes(0);
    CHECK(initialized() == 1);
    check_numbering();
    check_working();
    if (_my_pe() == 0)
        printf("test_setup start_pes: %d PEs OK\n", _num_pes());
    /* no shmem_finalize: start_pes implies one at exit, without which oshrun would
     * report this PE as having exited without finalizing */
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!*mode)
        return mode_default();
    if (!strcmp(mode, "thread"))
        return mode_thread();
    if (!strcmp(mode, "reinit"))
        return mode_reinit();
    if (!strcmp(mode, "start_pes"))
        return mode_start_pes();
    fprintf(stderr, "test_setup: unknown mode '%s'\n", mode);
    return 2;
}
