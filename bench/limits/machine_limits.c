/* The machine's own limits, measured without any SHMEM library so that benchmark
 * figures read as fractions of them:
 *   shm_pingpong  half round trip of an 8-byte ping-pong between two processes through a
 *                 shared mapping (one flag per direction, plain atomic loads/stores);
 *   atomic_rtt    half round trip of a counter two processes take turns to fetch-add
 *                 (the cache line crosses cores on every turn);
 *   memcpy_bw     memcpy bandwidth, 1 B .. 4 MiB, in one process.
 * Output: the same RESULT lines as the SHMEM programs, impl "machine". */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "limits.h"

/* Each flag on its own cache line, as each PE's flag lives in its own heap. */
struct shared {
    _Alignas(64) _Atomic long ping;
    _Alignas(64) _Atomic long pong;
    _Alignas(64) _Atomic long counter;
};

/* Runs `child` in a second process and `parent` here; returns the parent's time. */
static double two_processes(struct shared *s, void (*parent)(struct shared *, long),
                            void (*child)(struct shared *, long), long iters)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        child(s, iters);
        _exit(0);
    }
    double t0 = limits_now_us();
    parent(s, iters);
    double t = (limits_now_us() - t0) * 1e-6;
    waitpid(pid, NULL, 0);
    return t;
}

static void ping_side(struct shared *s, long iters)
{
    for (long i = 1; i <= iters; i++) {
        atomic_store_explicit(&s->ping, i, memory_order_release);
        while (atomic_load_explicit(&s->pong, memory_order_acquire) != i)
            ;
    }
}

static void pong_side(struct shared *s, long iters)
{
    for (long i = 1; i <= iters; i++) {
        while (atomic_load_explicit(&s->ping, memory_order_acquire) != i)
            ;
        atomic_store_explicit(&s->pong, i, memory_order_release);
    }
}

/* Takes the counter on even values (parity 0) or odd ones (parity 1). */
static void take_turns(struct shared *s, long iters, long parity)
{
    for (long i = 0; i < iters; i++) {
        while ((atomic_load_explicit(&s->counter, memory_order_acquire) & 1) != parity)
            ;
        atomic_fetch_add_explicit(&s->counter, 1, memory_order_acq_rel);
    }
}
static void even_side(struct shared *s, long iters)
{
    take_turns(s, iters, 0);
}
static void odd_side(struct shared *s, long iters)
{
    take_turns(s, iters, 1);
}

static void memcpy_sweep(size_t max, long iters)
{
    char *src = malloc(max), *dst = malloc(max);
    if (!src || !dst) {
        perror("malloc");
        exit(1);
    }
    memset(src, 1, max);
    memset(dst, 2, max);
    printf("# memcpy bandwidth\n# Size      Bandwidth (MB/s)\n");
    for (size_t size = 1; size <= max; size *= 2) {
        long n = size <= 8192 ? iters : (long)((double)iters * 8192.0 / (double)size) + 10;
        double t0 = limits_now_us();
        for (long i = 0; i < n; i++) {
            memcpy(dst, src, size);
            __asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
        }
        double mbs = (double)size * (double)n / (limits_now_us() - t0);
        printf("%-10zu %18.2f\n", size, mbs);
        limits_result("memcpy_bw", size, "bw_MBps", mbs);
    }
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    long iters = limits_iters(argc, argv, 100000, "iterations");
    struct shared *s =
            mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    double pp = two_processes(s, ping_side, pong_side, iters) / (double)iters / 2.0 * 1e6;
    printf("# shared-memory ping-pong, half round trip: %.3f us\n", pp);
    limits_result("shm_pingpong", 8, "lat_us", pp);

    atomic_store(&s->counter, 0);
    double at = two_processes(s, even_side, odd_side, iters) / (double)iters / 2.0 * 1e6;
    printf("# cross-process atomic fetch-add hand-off: %.3f us\n", at);
    limits_result("atomic_rtt", 8, "lat_us", at);

    memcpy_sweep((size_t)4 << 20, iters / 10 + 1);
    munmap(s, sizeof *s);
    return 0;
}
