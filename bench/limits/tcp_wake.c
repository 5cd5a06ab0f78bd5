/* The kernel's own cost of the round trip behind a get from a computing PE, measured
 * without libfabric or SHMEM, so that the get reads against it:
 *   tcp_spin_rt  8-byte TCP round trip on loopback, both sides polling their
 *                sockets (the floor of any request-reply over TCP here);
 *   tcp_wake_rt  the same, but the server is a thread asleep in poll() on a CPU
 *                that a busy thread of its process keeps running: every request
 *                wakes it and it must displace the busy thread, as a progress
 *                thread does beside a PE that computes;
 *   tcp_wake_raised_rt  the same with the sleeping thread 10 nice levels above
 *                the busy one, as Shoal's progress thread asks where its PE has a
 *                core of its own (skipped, with a note, without the right to).
 * The client (PE 0's role) runs on the first CPU this process may use and polls;
 * the server process (PE 1's) on the second. Full round trips, mean and median.
 * Output: RESULT lines as the SHMEM programs print them, impl "machine". */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "limits.h"

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* The n-th CPU (0-based) of those this process may use; the last one if fewer. */
static int nth_cpu(int n)
{
    int cpu = limits_nth_cpu(n);
    if (cpu < 0)
        die("sched_getaffinity");
    return cpu;
}

static void pin(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one))
        die("sched_setaffinity");
}

static void nodelay(int fd)
{
    int on = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on))
        die("setsockopt");
}

/* Reads exactly 8 bytes, polling the socket (spin) or sleeping in poll() first. */
static int read8(int fd, char *buf, int spin)
{
    size_t got = 0;
    while (got < 8) {
        if (!spin) {
            struct pollfd p = { fd, POLLIN, 0 };
            if (poll(&p, 1, -1) < 0)
                die("poll");
        }
        ssize_t r = recv(fd, buf + got, 8 - got, spin ? MSG_DONTWAIT : 0);
        if (r == 0)
            return 0;
        if (r > 0)
            got += (size_t)r;
    }
    return 1;
}

static atomic_int computing = 1;

static void *compute(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (atomic_load_explicit(&computing, memory_order_relaxed))
        x++;
    return NULL;
}

enum { SPIN, WAKE, WAKE_RAISED };

/* The server process: answers every 8 bytes until the client closes. */
static void serve(int lfd, int cpu, int how)
{
    int spin = how == SPIN;
    pin(cpu);
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        die("accept");
    nodelay(fd);
    pthread_t busy;
    if (!spin && pthread_create(&busy, NULL, compute, NULL))
        die("pthread_create");
    /* Linux nice levels are per thread: this one only. */
    if (how == WAKE_RAISED && setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) - 10))
        die("setpriority");
    char buf[8];
    while (read8(fd, buf, spin))
        if (send(fd, buf, 8, 0) != 8)
            die("send");
    if (!spin) {
        atomic_store(&computing, 0);
        pthread_join(busy, NULL);
    }
    close(fd);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One configuration: prints the mean and median full round trip. */
static void measure(const char *name, int how, long iters, int client_cpu, int server_cpu)
{
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 1) ||
        getsockname(lfd, (struct sockaddr *)&a, &len))
        die("listen");
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        serve(lfd, server_cpu, how);
        _exit(0);
    }
    close(lfd);
    pin(client_cpu);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a))
        die("connect");
    nodelay(fd);
    long warm = iters / 10 + 10;
    double *rt = malloc(sizeof *rt * (size_t)iters), sum = 0;
    if (!rt)
        die("malloc");
    char buf[8] = "ping!!!";
    for (long i = -warm; i < iters; i++) {
        double t0 = limits_now_us();
        if (send(fd, buf, 8, 0) != 8 || !read8(fd, buf, 1))
            die("round trip");
        if (i >= 0)
            sum += rt[i] = limits_now_us() - t0;
    }
    close(fd);
    waitpid(pid, NULL, 0);
    qsort(rt, (size_t)iters, sizeof *rt, by_value);
    printf("# %s: CPUs %d and %d, mean %.2f us, median %.2f us\n", name, client_cpu,
           server_cpu, sum / (double)iters, rt[iters / 2]);
    char p50[64];
    snprintf(p50, sizeof p50, "%s_p50", name);
    limits_result(name, 8, "lat_us", sum / (double)iters);
    limits_result(p50, 8, "lat_us", rt[iters / 2]);
    free(rt);
}

int main(int argc, char **argv)
{
    long iters = limits_iters(argc, argv, 2000, "round trips");
    int client = nth_cpu(0), server = nth_cpu(1);
    measure("tcp_spin_rt", SPIN, iters, client, server);
    measure("tcp_wake_rt", WAKE, iters, client, server);
    /* Whether this thread may go 10 levels up (CAP_SYS_NICE or RLIMIT_NICE). */
    int was = getpriority(PRIO_PROCESS, 0);
    if (setpriority(PRIO_PROCESS, 0, was - 10) == 0) {
        setpriority(PRIO_PROCESS, 0, was);
        measure("tcp_wake_raised_rt", WAKE_RAISED, iters, client, server);
    } else {
        printf("# tcp_wake_raised_rt: skipped, no right to raise a thread's priority\n");
    }
    return 0;
}
