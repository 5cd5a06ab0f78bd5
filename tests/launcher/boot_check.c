/* Drives the bootstrap layer directly (no libshoal) so the launcher can be
 * tested on its own. `boot_check MODE [ARGS]`; a RANK argument is a PE number
 * or "last". With BOOT_CHECK_PIDDIR set, each PE writes its pid to
 * $BOOT_CHECK_PIDDIR/pe.RANK so a test can check that none outlives the job. */
#include "bootstrap.h"
#include "wire.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct shoal_boot_ops *boot;
static struct shoal_boot_info info;

#define FAIL(...)                                                                            \
    do {                                                                                     \
        fprintf(stderr, "boot_check: PE %d: ", info.rank);                                   \
        fprintf(stderr, __VA_ARGS__);                                                        \
        fputc('\n', stderr);                                                                 \
        exit(1);                                                                             \
    } while (0)

static void start(void)
{
    boot = shoal_boot_select();
    if (!boot)
        exit(1);
    if (boot->init(&info))
        exit(1);
    const char *dir = getenv("BOOT_CHECK_PIDDIR");
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/pe.%d", dir, info.rank);
        FILE *f = fopen(path, "w");
        if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
            FAIL("cannot write %s", path);
    }
}

static void barrier(void)
{
    if (boot->barrier())
        FAIL("barrier failed");
}

static void finish(void)
{
    barrier();
    boot->finalize();
    exit(0);
}

static int target(const char *arg)
{
    if (!arg)
        FAIL("missing RANK argument");
    return !strcmp(arg, "last") ? info.size - 1 : atoi(arg);
}

static unsigned char pattern(int rank, size_t i, size_t len)
{
    return (unsigned char)(rank * 31 + i * 7 + len);
}

/* Allgather of len bytes per PE, in place when asked; checks every byte. */
static void check_allgather(size_t len, int in_place)
{
    unsigned char *out = malloc(len * (size_t)info.size + 1);
    unsigned char *in = in_place ? out + len * (size_t)info.rank : malloc(len + 1);
    for (size_t i = 0; i < len; i++)
        in[i] = pattern(info.rank, i, len);
    if (boot->allgather(in, out, len))
        FAIL("allgather of %zu bytes failed", len);
    for (int r = 0; r < info.size; r++)
        for (size_t i = 0; i < len; i++)
            if (out[(size_t)r * len + i] != pattern(r, i, len))
                FAIL("allgather of %zu bytes: byte %zu from PE %d is wrong", len, i, r);
    if (!in_place)
        free(in);
    free(out);
}

static void mode_ok(void)
{
    if (info.rank < 0 || info.rank >= info.size)
        FAIL("bad info: rank %d size %d", info.rank, info.size);
    const char *want = getenv("SHOAL_SIZE");
    if (want && atoi(want) != info.size)
        FAIL("size %d but SHOAL_SIZE=%s", info.size, want);
    long *v = malloc(sizeof(long) * (size_t)info.size);
    long mine = info.rank * 7L;
    if (boot->allgather(&mine, v, sizeof mine))
        FAIL("allgather failed");
    for (int r = 0; r < info.size; r++)
        if (v[r] != r * 7L)
            FAIL("allgather slot %d holds %ld, expected %ld", r, v[r], r * 7L);
    free(v);
    for (int i = 0; i < 100; i++)
        barrier();
    static const size_t sizes[] = { 0, 1, 13, 4096, 200000 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        if (sizes[k] * (size_t)info.size > ((size_t)4 << 20))
            continue; /* every PE holds size*len bytes: keep large jobs affordable */
        check_allgather(sizes[k], 0);
        check_allgather(sizes[k], 1);
    }
    finish();
}

/* Prints lines in several write()s each, so that oshrun sees pieces of lines. */
static void mode_echo(int lines)
{
    char buf[20000];
    for (int l = 0; l < lines; l++) {
        int fd = l % 2 ? 2 : 1;
        int n = snprintf(buf, sizeof buf, "%s %d %d ", fd == 1 ? "out" : "err", info.rank, l);
        int len = n + (l * 97 + info.rank * 13) % 9000;
        memset(buf + n, 'x', (size_t)(len - n));
        buf[len++] = '\n';
        for (int off = 0; off < len;) {
            int chunk = len - off < 3000 ? len - off : 3000;
            if (write(fd, buf + off, (size_t)chunk) != chunk)
                FAIL("write failed");
            off += chunk;
            sched_yield();
        }
    }
    finish();
}

static void mode_longline(void)
{
    size_t len = 150000;
    char *buf = malloc(len + 1);
    memset(buf, '0' + info.rank % 10, len);
    buf[len] = '\n';
    if (write(1, buf, len + 1) != (ssize_t)(len + 1))
        FAIL("write failed");
    free(buf);
    finish();
}

static void mode_stdin(void)
{
    char buf[65536];
    size_t total = 0;
    ssize_t n;
    int show = getenv("BOOT_CHECK_QUIET") == NULL;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        if (show && write(1, buf, (size_t)n) != n)
            FAIL("write failed");
        total += (size_t)n;
    }
    printf("stdin eof after %zu bytes\n", total);
    fflush(stdout);
    finish();
}

/* A program started from inside a PE inherits the variables but not the channel. */
static void mode_nested(const char *self)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' ok", self);
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 1)
        FAIL("nested program: status %d, expected exit 1", st);
    finish();
}

static void mode_bench(int iters)
{
    barrier();
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < iters; i++)
        barrier();
    clock_gettime(CLOCK_MONOTONIC, &b);
    double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
            1e3 / iters;
    if (info.rank == 0)
        printf("barrier round trip through oshrun: %.1f us (%d PEs, %d iterations)\n", us,
               info.size, iters);
    finish();
}

/* Plays an oshrun that answers HELLO and then dies: the PE must say so and exit 1. */
static void mode_lost_contact(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        FAIL("socketpair: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[1]);
        struct shoal_wire_hdr h;
        struct shoal_wire_hello hello;
        if (read(sv[0], &h, sizeof h) != sizeof h ||
            read(sv[0], &hello, sizeof hello) != sizeof hello)
            _exit(1);
        struct {
            struct shoal_wire_hdr h;
            struct shoal_wire_welcome w;
        } m = { { .type = SHOAL_WIRE_WELCOME, .len = sizeof m.w },
                { .size = 1, .node_size = 1 } };
        _exit(write(sv[0], &m, sizeof m) != sizeof m);
    }
    close(sv[0]);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[1]);
    setenv("SHOAL_BOOT_FD", fd, 1);
    setenv("SHOAL_RANK", "0", 1);
    setenv("SHOAL_SIZE", "1", 1);
    start();
    waitpid(pid, NULL, 0);
    boot->barrier();
    FAIL("barrier returned after oshrun went away");
}

/* "\rprogress i/n" once every 0.4 s, no newline until the end: the launcher
 * must pass each piece on while the PE still runs. With a file named, the PE
 * goes on after its first piece only once that file exists, which the test
 * creates when it has seen every PE's first piece: no race with the PE. */
static void mode_progress(int n, const char *go)
{
    for (int i = 1; i <= n; i++) {
        printf("\rprogress-%d %d/%d", info.rank, i, n);
        fflush(stdout);
        struct timespec ts = { 0, 400 * 1000 * 1000 }, poll = { 0, 10 * 1000 * 1000 };
        while (i == 1 && go && access(go, F_OK))
            nanosleep(&poll, NULL);
        nanosleep(&ts, NULL);
    }
    printf("\n");
    finish();
}

/* One line per PE: its CPUs, what oshrun said about them, its directory and
 * the variable named by the argument. */
static void mode_where(const char *var)
{
    cpu_set_t set;
    char cpus[1024] = "", cwd[4096] = "";
    if (sched_getaffinity(0, sizeof set, &set))
        FAIL("sched_getaffinity: %s", strerror(errno));
    for (int c = 0, at = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            at += snprintf(cpus + at, sizeof cpus - (size_t)at, "%s%d", at ? "," : "", c);
    if (!getcwd(cwd, sizeof cwd))
        FAIL("getcwd: %s", strerror(errno));
    const char *b = getenv("SHOAL_BINDING"), *v = var ? getenv(var) : NULL;
    printf("where %d cpus=%s binding=%s cwd=%s var=%s\n", info.rank, cpus, b ? b : "(unset)",
           cwd, v ? v : "(unset)");
    finish();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    const char *a2 = argc > 2 ? argv[2] : NULL, *a3 = argc > 3 ? argv[3] : NULL;

    if (!strcmp(mode, "lost-contact"))
        mode_lost_contact();
    if (!strcmp(mode, "noinit"))
        return 0;
    if (!strcmp(mode, "noinit-one")) {
        /* PE RANK leaves without shmem_init while the others wait for it. */
        const char *r = getenv("SHOAL_RANK"), *s = getenv("SHOAL_SIZE");
        if (r && s && atoi(r) == (strcmp(a2, "last") ? atoi(a2) : atoi(s) - 1))
            return 0;
        start();
        finish();
    }
    start();
    if (!strcmp(mode, "ok"))
        mode_ok();
    if (!strcmp(mode, "single")) {
        if (strcmp(boot->name, "single") || info.rank != 0 || info.size != 1)
            FAIL("backend %s, rank %d, size %d: expected single, 0, 1", boot->name, info.rank,
                 info.size);
        boot->abort(a2 ? atoi(a2) : 0, a3);
    }
    if (!strcmp(mode, "echo"))
        mode_echo(a2 ? atoi(a2) : 20);
    if (!strcmp(mode, "longline"))
        mode_longline();
    if (!strcmp(mode, "partial")) {
        printf("partial-%d", info.rank);
        fflush(stdout);
        finish();
    }
    if (!strcmp(mode, "stdin"))
        mode_stdin();
    if (!strcmp(mode, "progress"))
        mode_progress(a2 ? atoi(a2) : 3, a3);
    if (!strcmp(mode, "where"))
        mode_where(a2);
    if (!strcmp(mode, "nested"))
        mode_nested(argv[0]);
    if (!strcmp(mode, "bench"))
        mode_bench(a2 ? atoi(a2) : 1000);
    if (!strcmp(mode, "mismatch")) {
        char buf[64] = { 0 }, out[64 * 8];
        size_t len = info.rank == info.size - 1 && info.size > 1 ? 16 : 8;
        if (info.size > 8)
            FAIL("mismatch mode supports 8 PEs");
        boot->allgather(buf, out, len);
        finish();
    }
    if (!strcmp(mode, "hang")) {
        /* PE RANK sleeps; the others wait for it in a barrier. */
        if (info.rank == target(a2))
            for (;;)
                pause();
        finish();
    }
    if (!strcmp(mode, "hang-all")) {
        if (a2 && !strcmp(a2, "ignore-term"))
            signal(SIGTERM, SIG_IGN);
        for (;;)
            pause();
    }

    /* Failure modes: PE RANK fails after shmem_init, the others wait in a barrier. */
    int me = info.rank == target(!strcmp(mode, "exit") || !strcmp(mode, "abort") ? a3 : a2);
    if (!me)
        finish();
    if (!strcmp(mode, "exit"))
        exit(atoi(a2));
    if (!strcmp(mode, "segv"))
        raise(SIGSEGV);
    if (!strcmp(mode, "kill"))
        raise(SIGKILL);
    if (!strcmp(mode, "abort"))
        boot->abort(atoi(a2), argc > 4 ? argv[4] : NULL);
    if (!strcmp(mode, "nofinalize"))
        exit(0);
    FAIL("unknown mode '%s'", mode);
}
