/* Crashes keep their signal. Libraries that libfabric pulls in (libpsm_infinipath,
 * through the psm provider) install handlers for SIGSEGV, SIGABRT, SIGINT, ... from
 * their constructors that print a backtrace, leave a PROGRAM-PID.btr file in the
 * working directory and exit(1), so the launcher saw status 1 instead of the signal.
 * Shoal takes such handlers back, at load time (after its dependencies' constructors)
 * and again once the network transport has started: a fatal signal then prints
 * "shoal: PE n: killed by signal S (name)" and kills the process with that signal,
 * so the exit status is 128+S. A handler the program installed itself is left alone. */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "base/routine.h"
#include "base/signals.h"
#include "base/state.h"

static const struct {
    int sig;
    const char *name;
    int report;
} fatal_sigs[] = {
    { SIGSEGV, "Segmentation fault", 1 },
    { SIGBUS, "Bus error", 1 },
    { SIGILL, "Illegal instruction", 1 },
    { SIGFPE, "Floating point exception", 1 },
    { SIGABRT, "Aborted", 1 },
    /* ^C and kill: the default action, without a message from every PE */
    { SIGINT, "Interrupt", 0 },
    { SIGTERM, "Terminated", 0 },
};

/* Async-signal-safe: no stdio. */
static size_t put_str(char *buf, size_t at, size_t len, const char *s)
{
    while (*s && at < len)
        buf[at++] = *s++;
    return at;
}

static size_t put_int(char *buf, size_t at, size_t len, int v)
{
    char tmp[16];
    int n = 0;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) && n < (int)sizeof tmp);
    if (v < 0 && at < len)
        buf[at++] = '-';
    while (n && at < len)
        buf[at++] = tmp[--n];
    return at;
}

static void on_fatal(int sig)
{
    const char *name = "";
    for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++)
        if (fatal_sigs[i].sig == sig)
            name = fatal_sigs[i].name;
    char buf[128];
    size_t n = put_str(buf, 0, sizeof buf, "shoal: ");
    if (shoal.n_pes > 0) {
        n = put_str(buf, n, sizeof buf, "PE ");
        n = put_int(buf, n, sizeof buf, shoal.my_pe);
        n = put_str(buf, n, sizeof buf, ": ");
    }
    n = put_str(buf, n, sizeof buf, "killed by signal ");
    n = put_int(buf, n, sizeof buf, sig);
    n = put_str(buf, n, sizeof buf, " (");
    n = put_str(buf, n, sizeof buf, name);
    n = put_str(buf, n, sizeof buf, ")\n");
    ssize_t w = write(shoal.cfg.error_file && !strcmp(shoal.cfg.error_file, "stdout")
                              ? STDOUT_FILENO
                              : STDERR_FILENO,
                      buf, n);
    (void)w;
    if (shoal.boot && shoal.boot->dying)
        shoal.boot->dying(sig);
    /* The default action, with the signal unblocked: the process ends by it. */
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

/* A handler that one of libfabric's provider libraries installed. */
static int foreign_handler(const void *h)
{
    Dl_info info;
    if (!dladdr(h, &info) || !info.dli_fname)
        return 0;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp(base, "libpsm", 6) == 0 || strncmp(base, "libinfinipath", 13) == 0;
}

void shoal_signals_reclaim(void)
{
    for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_sigs[i].sig, NULL, &old))
            continue;
        int ours = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == on_fatal;
        int dflt = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
        const void *h = (old.sa_flags & SA_SIGINFO) ? (const void *)old.sa_sigaction
                                                    : (const void *)old.sa_handler;
        if (ours || old.sa_handler == SIG_IGN || !(dflt || foreign_handler(h)))
            continue; /* the program's own choice */
        struct sigaction sa = { .sa_handler = fatal_sigs[i].report ? on_fatal : SIG_DFL };
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(fatal_sigs[i].sig, &sa, NULL);
    }
}

/* The routine starting the library, named while it has a phase (shoal_init_phase);
 * the report handler reads it, so it is written and read whole (atomics). */
static const char *init_fn;

/* SIGURG from oshrun (--timeout, or SIGUSR1/SIGQUIT to oshrun): names the Shoal
 * routine the interrupted thread is in, or the phase of shmem_init that the PE is in
 * (any of its threads may take the signal then, the bootstrap's and the provider's
 * included, and the routine is known anyway). */
static void on_report(int sig)
{
    (void)sig;
    /* The interrupted code may be about to read errno (the bootstrap's EINTR checks). */
    int saved_errno = errno;
    char buf[256];
    size_t at = put_str(buf, 0, sizeof buf, "shoal: ");
    if (shoal.n_pes > 0) { /* the rank is known once the bootstrap has started */
        at = put_str(buf, at, sizeof buf, "PE ");
        at = put_int(buf, at, sizeof buf, shoal.my_pe);
        at = put_str(buf, at, sizeof buf, ": ");
    }
    const char *phase = shoal_init_phase_now();
    if (phase) {
        at = put_str(buf, at, sizeof buf, "blocked in ");
        at = put_str(buf, at, sizeof buf, __atomic_load_n(&init_fn, __ATOMIC_RELAXED));
        at = put_str(buf, at, sizeof buf, ": ");
        at = put_str(buf, at, sizeof buf, phase);
    } else {
        int inside;
        const char *routine = shoal_routine_now(1, &inside);
        at = put_str(buf, at, sizeof buf,
                     routine          ? "blocked in "
                             : inside ? "inside Shoal (routine not identified)"
                                      : "running (in no Shoal routine)");
        at = put_str(buf, at, sizeof buf, routine ? routine : "");
    }
    at = put_str(buf, at, sizeof buf, "\n");
    ssize_t w = write(STDERR_FILENO, buf, at);
    (void)w;
    errno = saved_errno;
}

void shoal_signals_report_on(const char *fn)
{
    __atomic_store_n(&init_fn, fn, __ATOMIC_RELAXED);
    struct sigaction old, sa = { .sa_handler = on_report, .sa_flags = SA_RESTART };
    void *warm[1];
    backtrace(warm, 1); /* loads libgcc now, not inside the handler */
    if (sigaction(SHOAL_REPORT_SIGNAL, NULL, &old) || old.sa_handler != SIG_DFL)
        return; /* the program's own */
    sigemptyset(&sa.sa_mask);
    sigaction(SHOAL_REPORT_SIGNAL, &sa, NULL);
}

/* Runs after the constructors of libshoal's dependencies (libfabric and what it
 * links), before the program's. */
__attribute__((constructor)) static void reclaim_at_load(void)
{
    shoal_signals_reclaim();
}
