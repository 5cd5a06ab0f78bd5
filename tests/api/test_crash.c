/* A Shoal program that dies by a signal: the job must end with that signal's exit
 * status (128+S) and Shoal's message naming the PE and the signal, whatever crash
 * handlers libfabric's providers install (libpsm_infinipath). usage: test_crash
 * segv|abort|term|int [noinit]: the last PE raises it; the others wait. With
 * hang, every PE waits forever (for tests that kill the launcher); with
 * extra_barrier, PE 0 calls one barrier more than the others (extra_reduce,
 * extra_psync: all but the last PE run one more collective), which must end the job
 * with a message; staggered finalizes at different times, which must not; net_fail
 * [compute|get] kills the last PE and has PE 0 put to it (and then compute), or get
 * from it. */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long never;

/* Stops (SIGSTOP: no thread of this PE answers the network any more), then dies
 * 0.5 s later by a child's SIGKILL: PE 0's puts or gets after the barrier are then
 * in flight, unanswered, when the connection resets, and fail. A PE that died at once
 * could be gone before PE 0's first operation, whose connection rxm would then retry
 * without a word until SHMEM_OFI_STALL_TIMEOUT. */
static void die_while_stopped(void)
{
    pid_t self = getpid();
    if (fork() == 0) {
        struct timespec t = { 0, 500 * 1000 * 1000 };
        nanosleep(&t, NULL);
        kill(self, SIGKILL);
        _exit(0);
    }
    raise(SIGSTOP);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "segv";
    int init = !(argc > 2 && !strcmp(argv[2], "noinit"));
    int last = 1;
    if (init) {
        shmem_init();
        last = shmem_my_pe() == shmem_n_pes() - 1;
    }
    if (!strcmp(how, "extra_barrier")) {
        shmem_barrier_all();
        if (shmem_my_pe() == 0)
            shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    if (!strcmp(how, "extra_reduce")) {
        /* The last PE's finalize matches the others' barrier; they then reduce
         * without it. */
        if (!last) {
            shmem_barrier_all();
            static long src = 1, dst;
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
        }
        shmem_finalize();
        return 0;
    }
    if (!strcmp(how, "net_fail")) {
        /* The last PE is killed; PE 0 keeps putting to it until the network says the
         * put failed. PE 0 ignores the launcher's SIGTERM so that its own message
         * (which oshrun still prints) is what the test sees, not the teardown. */
        static long box[1024];
        enum { BIG_BYTES = 16 << 20 };
        char *big = argc > 2 && !strcmp(argv[2], "compute") ? shmem_malloc(BIG_BYTES) : NULL;
        if (shmem_my_pe() == 0) {
            signal(SIGTERM, SIG_IGN);
            /* Connected before the kill: a provider may retry connecting to a peer
             * that is gone for as long as it likes. */
            shmem_long_p(box, 1, shmem_n_pes() - 1);
            shmem_quiet();
        }
        shmem_barrier_all();
        if (last)
            die_while_stopped();
        if (shmem_my_pe() == 0 && big) {
            /* Large puts still in flight when the target dies, then computing outside
             * Shoal: the progress thread reports. */
            for (int k = 0; k < 4; k++)
                shmem_putmem_nbi(big, big, BIG_BYTES, shmem_n_pes() - 1);
            for (volatile unsigned long spin = 0;; spin++)
                ;
        }
        if (shmem_my_pe() == 0 && argc > 2 && !strcmp(argv[2], "get"))
            for (long i = 0;; i++)
                shmem_long_get(box, box, 1024, shmem_n_pes() - 1);
        if (shmem_my_pe() == 0)
            for (long i = 0;; i++) {
                shmem_long_put(box, box, 1024, shmem_n_pes() - 1);
                shmem_quiet();
            }
        shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
        return 0;
    }
    if (!strcmp(how, "extra_psync")) {
        /* As extra_reduce, with an active-set broadcast over every PE, which waits
         * through pSync (an active-set barrier or reduction over every PE is the
         * world team's). */
        static long psync[SHMEM_BCAST_SYNC_SIZE], word;
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[i] = SHMEM_SYNC_VALUE;
        shmem_barrier_all();
        if (!last) {
            shmem_barrier_all();
            shmem_broadcast64(&word, &word, 1, 0, 0, 0, shmem_n_pes(), psync);
        }
        shmem_finalize();
        return 0;
    }
    if (!strcmp(how, "staggered")) {
        /* Not a mismatch: PE i works alone for i * 150 ms (puts to its right
         * neighbour, checked), so the early PEs wait long in shmem_finalize while
         * the others still work, and the last ones find the first ones already gone
         * from the same barrier. */
        static long box[64];
        int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
        struct timespec t = { 0, 5000000 };
        for (int i = 0; i < me * 30; i++) {
            shmem_long_p(&box[i % 64], me * 1000 + i, right);
            nanosleep(&t, NULL);
        }
        shmem_barrier_all();
        /* What the left neighbour's puts leave, replayed here. */
        long want[64] = { 0 };
        int left = (me + n - 1) % n, bad = 0;
        for (int i = 0; i < left * 30; i++)
            want[i % 64] = left * 1000 + i;
        for (int i = 0; i < 64; i++)
            bad += box[i] != want[i];
        shmem_finalize();
        printf("staggered: PE %d done%s\n", me, bad ? " (BAD DATA)" : "");
        return bad != 0;
    }
    if (last && strcmp(how, "hang")) {
        if (!strcmp(how, "segv"))
            *(volatile int *)(size_t)(argc * 4096) =
                    1; /* aligned, in the page no program maps */
        else if (!strcmp(how, "abort"))
            abort();
        else if (!strcmp(how, "term"))
            raise(SIGTERM);
        else if (!strcmp(how, "int"))
            raise(SIGINT);
        fprintf(stderr, "test_crash: still alive after %s\n", how);
        return 3;
    }
    shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
    return 0;
}
