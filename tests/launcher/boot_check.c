/* Drives the bootstrap layer directly (no libshoal) so the launcher can be
 * tested on its own. `boot_check MODE [ARGS]`; a RANK argument is a PE number
 * or "last". With BOOT_CHECK_PIDDIR set, each PE writes its pid to
 * $BOOT_CHECK_PIDDIR/pe.RANK so a test can check that none outlives the job. */
#include "bootstrap.h"
#include "wire.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
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

/* Creates DIR/NAME.RANK, a sign to the other PEs. */
static void touch(const char *dir, const char *name, int rank, long content)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d", dir, name, rank);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%ld\n", content) < 0 || fclose(f))
        FAIL("cannot write %s", path);
}

/* Waits until DIR/NAME.RANK exists; returns what it holds. */
static long await_file(const char *dir, const char *name, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d", dir, name, rank);
    struct timespec poll = { 0, 5 * 1000 * 1000 };
    long v = 0;
    for (;;) {
        FILE *f = fopen(path, "r");
        int got = f ? fscanf(f, "%ld", &v) : 0;
        if (f)
            fclose(f);
        if (got == 1)
            return v;
        nanosleep(&poll, NULL);
    }
}

/* Every PE leaves a partial line ("partial-end-R", no newline), even-numbered
 * ones on stdout, odd-numbered ones on stderr; once all have (DIR/said.R), PE
 * VICTIM ends as HOW says (kill, exit, nofinalize, abort) while the others wait
 * in a barrier. oshrun must pass on every partial line, whole and ended, before
 * its verdict. */
static void mode_partial_end(const char *how, int victim, const char *dir)
{
    char text[64];
    int n = snprintf(text, sizeof text, "partial-end-%d", info.rank);
    if (write(1 + info.rank % 2, text, (size_t)n) != n)
        FAIL("write failed");
    if (info.rank != victim) {
        touch(dir, "said", info.rank, 0);
        finish();
    }
    for (int r = 0; r < info.size; r++)
        if (r != victim)
            await_file(dir, "said", r);
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    if (!strcmp(how, "exit"))
        exit(3);
    if (!strcmp(how, "nofinalize"))
        exit(0);
    if (!strcmp(how, "abort"))
        boot->abort(4, "disk on fire");
    FAIL("unknown way to end '%s'", how);
}

/* Some PEs end, or hang, before shmem_init: with SET odd, the odd-numbered ones;
 * with SET rest, all but PE 0 (PE 0 alone at one PE). The others start, say so
 * (DIR/in.R) and wait. Once they all have, the late PEs exit 0, each written to
 * DIR/gone.R first; the last of them waits until oshrun has reaped the others
 * (their pids gone), then ends as HOW says: kill, exit (status 3), or hang (after
 * creating DIR/hung.R), for the test to end the job. A PE exiting 0 ends no job
 * while none waits in a setup exchange, so the verdict comes from the last late
 * PE, and every late PE has ended (or hangs) by then. */
static void mode_late(const char *set, const char *how, const char *dir)
{
    const char *re = getenv("SHOAL_RANK"), *se = getenv("SHOAL_SIZE");
    if (!re || !se || !dir)
        FAIL("late mode needs SHOAL_RANK, SHOAL_SIZE and a DIR argument");
    int rank = atoi(re), size = atoi(se);
    bool odd = !strcmp(set, "odd");
    const char *piddir = getenv("BOOT_CHECK_PIDDIR");
#define IS_LATE(r) (size == 1 || (odd ? (r) % 2 == 1 : (r) > 0))
    if (!IS_LATE(rank)) {
        start();
        touch(dir, "in", rank, 0);
        for (;;)
            pause();
    }
    if (piddir) /* as start() would: no late PE may outlive the job either */
        touch(piddir, "pe", rank, (long)getpid());
    int last = size - 1;
    while (!IS_LATE(last))
        last--;
    for (int r = 0; r < size; r++)
        if (!IS_LATE(r))
            await_file(dir, "in", r);
    if (rank != last) {
        touch(dir, "gone", rank, (long)getpid());
        exit(0);
    }
    struct timespec poll = { 0, 5 * 1000 * 1000 };
    for (int r = 0; r < last; r++)
        if (IS_LATE(r))
            while (kill((pid_t)await_file(dir, "gone", r), 0) == 0)
                nanosleep(&poll, NULL);
#undef IS_LATE
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    if (!strcmp(how, "exit"))
        exit(3);
    if (!strcmp(how, "hang")) {
        touch(dir, "hung", rank, 0);
        for (;;)
            pause();
    }
    FAIL("unknown way to end '%s'", how);
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
    if (!strcmp(mode, "late"))
        mode_late(a2, a3, argc > 4 ? argv[4] : NULL);
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
    if (!strcmp(mode, "partial-end"))
        mode_partial_end(a2, target(a3), argc > 4 ? argv[4] : ".");
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
