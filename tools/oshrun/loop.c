/* oshrun's event loop: one poll over the signal descriptor, every PE's channel
 * and output pipes, and stdin. Signals (SIGCHLD included) arrive through a
 * signalfd, so reaping and forwarding never race with the loop. */
#include "oshrun.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After the last PE is reaped, how long output pipes still held open by
 * something the PEs started may keep oshrun waiting. */
#define OUTPUT_GRACE_S 0.25

/* How long a PE that closed its channel may take to exit before it counts as
 * alive without one. */
#define AWAIT_EXIT_S 1.0

enum slot_kind { SLOT_SIGNAL, SLOT_STDIN, SLOT_STDIN_PIPE, SLOT_CHAN, SLOT_OUT, SLOT_ERR };

struct slot {
    enum slot_kind kind;
    struct pe *pe;
};

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void setup_signals(struct job *j)
{
    sigset_t set;
    sigemptyset(&set);
    int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGUSR1 };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&set, sigs[i]);
    /* An inherited SIG_IGN for SIGCHLD would reap the PEs behind our back. */
    signal(SIGCHLD, SIG_DFL);
    sigprocmask(SIG_BLOCK, &set, &j->child_mask);
    j->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (j->sigfd < 0) {
        perror("oshrun: signalfd");
        exit(1);
    }
    /* A reader of our output going away must not kill oshrun and orphan the job. */
    struct sigaction ign = { .sa_handler = SIG_IGN }, old;
    sigaction(SIGPIPE, &ign, &old);
    j->child_ignores_sigpipe = old.sa_handler == SIG_IGN;
}

/* How long a PE may stay stopped (SIGSTOP, SIGTSTP from outside the job) before
 * oshrun says so: the PEs that wait for it look hung, and nothing else tells. */
#define STOP_REPORT_S 5.0

/* Notes the PEs that a signal stopped or continued. */
static void track_stops(struct job *j)
{
    siginfo_t si;
    for (;;) {
        si.si_pid = 0;
        if (waitid(P_ALL, 0, &si, WSTOPPED | WCONTINUED | WNOHANG) < 0 || si.si_pid == 0)
            return;
        for (int r = 0; r < j->size; r++) {
            struct pe *pe = &j->pes[r];
            if (pe->pid != si.si_pid || pe->exited)
                continue;
            if (si.si_code == CLD_STOPPED) {
                pe->stopped_at = now_s();
                pe->stop_sig = si.si_status;
                pe->stop_told = false;
            } else if (si.si_code == CLD_CONTINUED) {
                if (pe->stop_told)
                    dprintf(2, "oshrun: PE %d (pid %d) continues\n", pe->rank, (int)pe->pid);
                pe->stopped_at = 0;
            }
        }
    }
}

/* When the next stopped PE is due to be reported, or 0; reports those due at now. */
static double report_stops(struct job *j, double now)
{
    double next = 0;
    for (int r = 0; r < j->size; r++) {
        struct pe *pe = &j->pes[r];
        if (pe->exited || pe->stopped_at == 0 || pe->stop_told || j->ending)
            continue;
        double due = pe->stopped_at + STOP_REPORT_S;
        if (now < due) {
            next = next == 0 || due < next ? due : next;
            continue;
        }
        streams_settle(j);
        dprintf(2,
                "oshrun: PE %d (pid %d) has been stopped by signal %d (%s) for %.0f s; the "
                "PEs that wait for it cannot go on: continue it (kill -CONT %d), or end "
                "the job (Ctrl-C)\n",
                pe->rank, (int)pe->pid, pe->stop_sig, strsignal(pe->stop_sig),
                now - pe->stopped_at, (int)pe->pid);
        pe->stop_told = true;
    }
    return next;
}

/* Each exited child is first looked at without being reaped: its regions in
 * /dev/shm are removed while its pid cannot belong to anyone else. */
static void reap(struct job *j)
{
    siginfo_t si;
    for (;;) {
        si.si_pid = 0;
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
            return;
        pid_t pid = si.si_pid;
        struct pe *pe = NULL;
        for (int r = 0; r < j->size && !pe; r++)
            if (j->pes[r].pid == pid && !j->pes[r].exited)
                pe = &j->pes[r];
        if (pe)
            remove_pe_regions(pe);
        int st;
        if (waitpid(pid, &st, 0) != pid)
            return;
        if (pe)
            pe_reaped(j, pe, st);
    }
}

/* A PE whose channel closed is most likely exiting: give it a moment to be
 * reaped, so that a verdict names its exit status rather than the closed channel. */
void await_exit(struct job *j, struct pe *pe)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    double end = now_s() + AWAIT_EXIT_S, left;
    reap(j);
    while (!pe->exited && (left = end - now_s()) > 0) {
        struct timespec ts = { .tv_sec = (time_t)left,
                               .tv_nsec = (long)((left - (double)(time_t)left) * 1e9) };
        if (sigtimedwait(&chld, NULL, &ts) == SIGCHLD)
            reap(j);
    }
}

static void on_signals(struct job *j)
{
    struct signalfd_siginfo si;
    while (read(j->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            track_stops(j);
            reap(j);
        } else if (sig == SIGTSTP) {
            /* Ctrl-Z: stop the PEs with us; SIGCONT (fg, bg) resumes them. */
            kill_pes(j, SIGTSTP);
            raise(SIGSTOP);
        } else if (sig == SIGCONT) {
            kill_pes(j, SIGCONT);
        } else if (sig == SIGUSR1) {
            ask_reports(j); /* where is everyone? the job goes on */
        } else if (j->ending) {
            kill_pes(j, SIGKILL); /* asked twice: no more grace */
        } else {
            if (sig == SIGQUIT)
                ask_reports(j);
            job_stop(j, 128 + sig, sig, "got signal %d (%s)", sig, strsignal(sig));
        }
    }
}

static bool streams_open(const struct job *j)
{
    for (int r = 0; r < j->size; r++)
        if (j->pes[r].out.fd >= 0 || j->pes[r].err.fd >= 0)
            return true;
    return false;
}

/* Milliseconds until the earliest of the given deadlines (0 = unset), or -1. */
static int poll_timeout(double now, const double *deadlines, size_t n)
{
    double first = 0;
    for (size_t i = 0; i < n; i++)
        if (deadlines[i] > 0 && (first == 0 || deadlines[i] < first))
            first = deadlines[i];
    if (first == 0)
        return -1;
    double ms = ceil((first - now) * 1e3);
    return ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
}

void run_job(struct job *j)
{
    size_t cap = (size_t)j->size * 4 + 3;
    struct pollfd *pfd = calloc(cap, sizeof *pfd);
    struct slot *slot = calloc(cap, sizeof *slot);
    if (!pfd || !slot) {
        job_end(j, 1, SIGKILL, "out of memory");
        job_verdict(j);
        free(pfd);
        free(slot);
        return;
    }
    double grace_at = 0;
    for (;;) {
        double now = now_s();
        if (j->running == 0) {
            if (!streams_open(j))
                break;
            if (grace_at == 0)
                grace_at = now + OUTPUT_GRACE_S;
            else if (now >= grace_at)
                break;
        }
        if (j->timeout_at > 0 && !j->ending && now >= j->timeout_at)
            report_timeout(j);
        if (j->kill_at > 0 && now >= j->kill_at) {
            kill_pes(j, SIGKILL);
            j->kill_at = 0;
        }

        size_t n = 0;
#define ADD(fd_, ev_, kind_, pe_)                                                            \
    (pfd[n] = (struct pollfd){ .fd = (fd_), .events = (ev_) },                               \
     slot[n++] = (struct slot){ (kind_), (pe_) })
        ADD(j->sigfd, POLLIN, SLOT_SIGNAL, NULL);
        if (j->stdin_readers > 0 && !j->stdin_len)
            ADD(0, POLLIN, SLOT_STDIN, NULL);
        for (int r = 0; r < j->size; r++) {
            struct pe *pe = &j->pes[r];
            if (pe->stdin_fd >= 0 && pe->stdin_off < j->stdin_len)
                ADD(pe->stdin_fd, POLLOUT, SLOT_STDIN_PIPE, pe);
            if (pe->chan >= 0)
                ADD(pe->chan, POLLIN | (pe->reply ? POLLOUT : 0), SLOT_CHAN, pe);
            if (pe->out.fd >= 0)
                ADD(pe->out.fd, POLLIN, SLOT_OUT, pe);
            if (pe->err.fd >= 0)
                ADD(pe->err.fd, POLLIN, SLOT_ERR, pe);
        }
#undef ADD
        double held = streams_flush_held(j, now);
        double stops = report_stops(j, now);
        double deadlines[] = { j->ending ? 0 : j->timeout_at, j->kill_at, grace_at, held,
                               stops };
        int ready = poll(pfd, n, poll_timeout(now, deadlines, 5));
        if (ready < 0 && errno != EINTR) {
            job_end(j, 1, SIGKILL, "poll: %s", strerror(errno));
            break;
        }
        /* A handler may close descriptors listed later in this round; each
         * checks that its descriptor is still open. */
        for (size_t i = 0; ready > 0 && i < n; i++) {
            if (!pfd[i].revents)
                continue;
            struct pe *pe = slot[i].pe;
            switch (slot[i].kind) {
            case SLOT_SIGNAL: on_signals(j); break;
            case SLOT_STDIN:
                if (j->stdin_readers > 0 && !j->stdin_len)
                    stdin_read(j);
                break;
            case SLOT_STDIN_PIPE: stdin_write(j, pe); break;
            case SLOT_CHAN:
                if (pfd[i].revents & POLLOUT && pe->chan >= 0)
                    chan_write(j, pe);
                if (pfd[i].revents & ~POLLOUT && pe->chan >= 0)
                    chan_read(j, pe);
                break;
            case SLOT_OUT: stream_read(j, pe, &pe->out, false); break;
            case SLOT_ERR: stream_read(j, pe, &pe->err, false); break;
            }
        }
    }
    for (int r = 0; r < j->size; r++) {
        stream_flush_close(j, &j->pes[r], &j->pes[r].out);
        stream_flush_close(j, &j->pes[r], &j->pes[r].err);
    }
    job_verdict(j);
    free(j->coll_result); /* a collective the job ended in the middle of */
    free(pfd);
    free(slot);
}
