/* Verdicts: deciding when the job has failed, saying why, and ending it. */
#include "oshrun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long PEs get to exit after SIGTERM before SIGKILL. */
#define KILL_GRACE_S 2.0

void kill_pes(struct job *j, int sig)
{
    bool group_alive = false;
    for (int r = 0; r < j->size; r++) {
        struct pe *pe = &j->pes[r];
        if (pe->pid && !pe->exited) {
            kill(pe->pid, sig);
            group_alive |= getpgid(pe->pid) == j->pgid;
        }
    }
    /* The group also reaches what the PEs started. Only while one of our unreaped
     * PEs is in it: then its number cannot have been reused by someone else's group. */
    if (group_alive)
        killpg(j->pgid, sig);
}

/* A started PE that never connected to oshrun has not called shmem_init (or is
 * stuck before it). Those still running count only with running: otherwise they
 * may merely be slower to start than the PE whose failure ends the job. */
static bool unconnected(const struct pe *pe, bool running)
{
    return pe->pid && !pe->hello && (pe->exited || running);
}

/* Names the PEs marked unconnected when the verdict was decided (not when it is
 * printed: by then the PEs that were still starting have been ended too) on one line:
 * "PEs 2, 3 never connected ...", runs of three or more as "4-7". */
static void report_unconnected(const struct job *j)
{
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    if (!f)
        return;
    int count = 0;
    for (int r = 0; r < j->size; r++) {
        if (!j->pes[r].unconnected)
            continue;
        int last = r;
        while (last + 1 < j->size && j->pes[last + 1].unconnected)
            last++;
        if (last - r >= 2) {
            fprintf(f, "%s%d-%d", count ? ", " : "", r, last);
        } else {
            for (int q = r; q <= last; q++)
                fprintf(f, "%s%d", count || q > r ? ", " : "", q);
        }
        count += last - r + 1;
        r = last;
    }
    fclose(f);
    if (count)
        dprintf(2,
                "oshrun: PE%s %s never connected to oshrun (did the program call "
                "shmem_init?)\n",
                count > 1 ? "s" : "", list);
    free(list);
}

/* How long an exiting PE may take to become a zombie. */
#define DYING_S 0.5

/* Whether pe, which is exiting, was killed by a signal: waits for it to become a
 * zombie (without reaping it) for at most DYING_S. */
static bool killed(const struct pe *pe)
{
    double until = now_s() + DYING_S;
    for (;;) {
        siginfo_t si = { .si_pid = 0 };
        if (!waitid(P_PID, (id_t)pe->pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
            si.si_pid == pe->pid)
            return si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED;
        if (now_s() >= until)
            return false;
        nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
    }
}

/* Whether the kernel is ending pe: its flags in /proc/PID/stat have PF_EXITING,
 * set when it starts to exit, before it closes its files, or it is a zombie. */
static bool exiting(const struct pe *pe)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pe->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold anything */
    char state;
    unsigned long flags;
    if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
        return false;
    return state == 'Z' || state == 'X' || (flags & 0x4 /* PF_EXITING */);
}

/* A failure a PE reports is often the effect of another PE's death (a get from a
 * PE killed meanwhile fails, as soon as the dying PE's sockets close), and the
 * report can reach oshrun before the dead PE is reaped. If a signal is ending a
 * PE, that death, the cause, is the verdict. */
static void deaths_first(struct job *j)
{
    static bool settling;
    if (settling)
        return;
    settling = true;
    for (int r = 0; r < j->size && !j->ending; r++) {
        struct pe *pe = &j->pes[r];
        int st;
        if (pe->exited || !pe->pid || !exiting(pe) || !killed(pe))
            continue;
        remove_pe_regions(pe); /* while its pid is still its own, as reap does */
        if (waitpid(pe->pid, &st, 0) == pe->pid)
            pe_reaped(j, pe, st);
    }
    settling = false;
}

static void end_job(struct job *j, bool running, int status, int sig, const char *fmt,
                    va_list ap)
{
    if (j->ending)
        return;
    deaths_first(j);
    if (j->ending)
        return;
    j->ending = true;
    j->status = status;
    /* The verdict is printed once the PEs are gone (job_verdict), so that it comes
     * after everything they print, what they print while they are ended included. */
    if (vasprintf(&j->verdict, fmt, ap) < 0)
        j->verdict = NULL;
    j->verdict_fmt = fmt;
    for (int r = 0; r < j->size; r++)
        j->pes[r].unconnected = unconnected(&j->pes[r], running);
    kill_pes(j, sig);
    j->kill_at = now_s() + KILL_GRACE_S;
    stdin_close_all(j);
}

void job_verdict(struct job *j)
{
    if (!j->ending || !j->verdict_fmt)
        return;
    streams_settle(j);
    dprintf(2, "oshrun: %s; ending the job\n", j->verdict ? j->verdict : j->verdict_fmt);
    report_unconnected(j);
    free(j->verdict);
    j->verdict = NULL;
    j->verdict_fmt = NULL;
}

void job_end(struct job *j, int status, int sig, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    end_job(j, false, status, sig, fmt, ap);
    va_end(ap);
}

void job_stop(struct job *j, int status, int sig, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    end_job(j, true, status, sig, fmt, ap);
    va_end(ap);
}

void pe_reaped(struct job *j, struct pe *pe, int wstatus)
{
    pe->exited = true;
    j->running--;
    /* Requests it sent before it ended (an abort, a finalize) decide what its exit means. */
    chan_read(j, pe);
    chan_close(pe);
    stream_read(j, pe, &pe->out, true);
    stream_read(j, pe, &pe->err, true);
    stdin_close(j, pe);
    if (j->ending)
        return;
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        job_end(j, 128 + sig, SIGTERM, "PE %d (pid %d) was killed by signal %d (%s%s)",
                pe->rank, (int)pe->pid, sig, strsignal(sig),
                WCOREDUMP(wstatus) ? ", core dumped" : "");
    } else if (WEXITSTATUS(wstatus)) {
        job_end(j, WEXITSTATUS(wstatus), SIGTERM, "PE %d (pid %d) exited with status %d",
                pe->rank, (int)pe->pid, WEXITSTATUS(wstatus));
    } else if (pe->hello && !pe->finalized) {
        job_end(j, 1, SIGTERM, "PE %d (pid %d) exited without calling shmem_finalize",
                pe->rank, (int)pe->pid);
    } else if (!pe->hello) {
        j->never_connected++;
    }
    check_stuck(j);
}

/* A collective is under way but some PE can never join it: end the job rather than hang. */
void check_stuck(struct job *j)
{
    for (int r = 0; r < j->size; r++) {
        struct pe *pe = &j->pes[r];
        if (j->ending || j->coll_arrived == 0)
            return;
        if (pe->op != OP_NONE || !(pe->exited || pe->chan < 0 || pe->finalized))
            continue;
        if (!pe->exited && !pe->finalized) {
            await_exit(j, pe); /* its own verdict, if it exits, comes first */
            if (j->ending || j->coll_arrived == 0)
                return;
        }
        const char *why = pe->finalized    ? "already called shmem_finalize"
                : pe->exited && !pe->hello ? "exited without calling shmem_init"
                : pe->exited               ? "exited"
                                           : "closed its oshrun channel";
        job_end(j, 1, SIGTERM, "PE %d %s, but PE %d waits for it in %s", r, why,
                j->coll_first,
                j->coll_op == OP_BARRIER ? "a setup barrier" : "a setup allgather");
        return;
    }
}

static const char *pe_state(const struct pe *pe)
{
    if (pe->op == OP_BARRIER)
        return "in a setup barrier";
    if (pe->op == OP_ALLGATHER)
        return "in a setup allgather";
    if (pe->finalized)
        return "after shmem_finalize";
    return pe->hello ? "running" : "before shmem_init";
}

/* Asks every PE past shmem_init which Shoal routine it is in: libshoal answers
 * SIGURG with "shoal: PE n: blocked in shmem_barrier_all" on its stderr (SIGURG's
 * default action, ignore, spares programs that are not Shoal's). Waits until each
 * asked PE has written to its stderr (passed on here) or exited, so that the
 * answers come before anything ends the PEs: on a loaded machine a PE may wait a
 * while for a CPU to answer on. A PE that does not answer (a program with its own
 * SIGURG handler, or none from Shoal) is given up after REPORT_WAIT_S. */
#define REPORT_WAIT_S 2.0
void ask_reports(struct job *j)
{
    struct pollfd *pfd = calloc((size_t)j->size, sizeof *pfd);
    struct pe **asked = calloc((size_t)j->size, sizeof *asked);
    if (!pfd || !asked) {
        free(pfd);
        free(asked);
        return;
    }
    size_t n = 0;
    for (int r = 0; r < j->size; r++) {
        struct pe *pe = &j->pes[r];
        if (pe->pid && !pe->exited && pe->hello && pe->err.fd >= 0 &&
            kill(pe->pid, SIGURG) == 0)
            asked[n++] = pe;
    }
    double end = now_s() + REPORT_WAIT_S;
    while (n > 0) {
        double left = end - now_s();
        if (left <= 0)
            break;
        for (size_t i = 0; i < n; i++)
            pfd[i] = (struct pollfd){ .fd = asked[i]->err.fd, .events = POLLIN };
        if (poll(pfd, n, (int)(left * 1e3) + 1) < 0 && errno != EINTR)
            break;
        /* A PE that answered (or closed its stderr) is done with; keep the rest. */
        size_t keep = 0;
        for (size_t i = 0; i < n; i++) {
            if (pfd[i].revents)
                stream_read(j, asked[i], &asked[i]->err, false);
            else
                asked[keep++] = asked[i];
        }
        n = keep;
    }
    free(pfd);
    free(asked);
}

/* Lists the PEs still running, grouped by what they are doing: "PEs 0-2,5 (running)". */
void report_timeout(struct job *j)
{
    ask_reports(j);
    static const char *const states[] = { "running", "in a setup barrier",
                                          "in a setup allgather", "before shmem_init",
                                          "after shmem_finalize" };
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    if (!f) {
        job_stop(j, 124, SIGTERM, "the job ran longer than --timeout %g s", j->opt.timeout);
        return;
    }
    bool any = false;
    for (size_t s = 0; s < sizeof states / sizeof states[0]; s++) {
        int count = 0;
        for (int r = 0; r < j->size; r++) {
            const struct pe *pe = &j->pes[r];
            if (!pe->pid || pe->exited || strcmp(pe_state(pe), states[s]))
                continue;
            /* Extend a run of consecutive PEs in the same state into "a-b". */
            int last = r;
            while (last + 1 < j->size && j->pes[last + 1].pid && !j->pes[last + 1].exited &&
                   !strcmp(pe_state(&j->pes[last + 1]), states[s]))
                last++;
            fprintf(f, "%s%d", count ? "," : any ? "; PE " : "PE ", r);
            if (last > r)
                fprintf(f, "-%d", last);
            count += last - r + 1;
            r = last;
        }
        if (count)
            fprintf(f, " (%s)", states[s]);
        any |= count > 0;
    }
    fclose(f);
    job_stop(j, 124, SIGTERM, "the job ran longer than --timeout %g s; still running: %s",
             j->opt.timeout, list);
    free(list);
}
