/* Progress and waiting. Providers with manual progress (tcp, rxm) move data and
 * serve peers' operations only inside calls that read a CQ or counter, so every
 * wait here drives its own context and the default context's endpoint (the
 * target of every peer, this PE included), and progress() drives them all. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/routine.h"
#include "transport/ofi/ofi.h"

/* The progress thread sleeps on the default CQ's wait object, waking at least
 * every OFI_WAKE_MS. Where the provider has none it polls, every OFI_POLL_MIN_NS
 * after traffic, doubling up to OFI_POLL_MAX_NS while nothing happens: a
 * peer's first get after a pause waits at most that long, and an idle PE costs
 * about a thousand wake-ups a second. */
#define OFI_WAKE_MS 100
#define OFI_POLL_MIN_NS 20000L
#define OFI_POLL_MAX_NS 1000000L
/* While a PE thread is busy in the transport (ofi_pe_busy: it posts, or polls in
 * a wait, and so drives the provider itself) the progress thread stays away,
 * neither taking the locks the PE takes on every poll nor being woken by every
 * packet, which would preempt the PE on its own core: both cost the PE a few
 * microseconds per message. It looks again after OFI_POLL_MIN_NS, doubling up to
 * OFI_POLL_MAX_NS while the PE stays busy. */
#define OFI_CQ_BATCH 16
/* Where PEs outnumber cores, a waiting PE thread drives the network on every
 * poll itself, and the progress thread only competes with it: woken by every
 * message, it takes a core from the very peers the waiter waits for, to do what
 * the waiter does anyway. So there it naps OFI_PARK_NS while a PE thread has
 * driven within the last OFI_PARK_NS, and goes back to its wait object (or
 * polling) once none has: a peer's operation on a PE that has just stopped
 * waiting to compute waits at most about twice that. At 8 PEs on 2 cores over
 * tcp;ofi_rxm, parking made barriers and small reductions 2.5-3 times faster, on
 * a third of the CPU time. The waiter's sleeps are on the wait
 * object there (ofi_nap), so it answers a peer as soon as the thread would have.
 * A PE with a core of its own keeps the thread awake beside its waits. */
#define OFI_PARK_NS 1000000L

__thread uint64_t ofi_pe_last_ns;

/* How many nice levels above its PE the progress thread asks to run where the PE has
 * a core of its own, which the thread shares. At equal weight the scheduler often
 * finds a thread that wakes this often not yet eligible and runs it only at the next
 * tick (up to 4 ms at HZ=250), so a peer's get from a computing PE stalls; a higher
 * weight keeps it eligible. Raising needs CAP_SYS_NICE or RLIMIT_NICE: without, the
 * thread takes what RLIMIT_NICE allows (SHMEM_OFI_LOWER_PE lowers the PE instead).
 * Not where PEs share cores, where the thread would take the core from other PEs. */
#define OFI_PROGRESS_NICE_UP 10

/* The progress thread leaves an error to the PE's own threads, whose report can name
 * the routine they are in (a waiting thread drains the CQ every few milliseconds
 * at most); it reports it itself only when none has within OFI_ERR_GRACE_NS (the
 * program is computing outside Shoal). */
#define OFI_ERR_GRACE_NS 300000000L
static __thread int on_progress_thread;
static struct timespec err_seen; /* when the progress thread first saw one; 0: never */

/* The PE an error entry's operation targeted (its context: a slot or the PE's tag,
 * ofi_op_ctx), or -1. */
static int error_target(const void *op_context)
{
    const char *p = op_context;
    if (p >= ofi.pe_tag && p < ofi.pe_tag + 2 * shoal.n_pes)
        return (int)(p - ofi.pe_tag) % shoal.n_pes;
    for (struct ofi_ctx *c = ofi.ctxs; c && p; c = c->next_ctx)
        if (p >= (const char *)&c->slot[0] && p < (const char *)&c->slot[OFI_BOUNCE_SLOTS])
            return ((const struct ofi_slot *)op_context)->pe;
    return -1;
}

static _Noreturn void cq_error(struct ofi_ctx *c)
{
    struct fi_cq_err_entry err = { 0 };
    char detail[256] = "";
    if (fi_cq_readerr(c->cq, &err, 0) > 0 && err.prov_errno)
        fi_cq_strerror(c->cq, err.prov_errno, err.err_data, detail, sizeof detail);
    const char *p = err.op_context;
    int settling = p >= ofi.pe_tag + shoal.n_pes && p < ofi.pe_tag + 2 * shoal.n_pes;
    const char *op = (err.flags & FI_ATOMIC) ? "an AMO"
            : settling                       ? "a put"
            : (err.flags & FI_READ)          ? "a get"
            : (err.flags & FI_WRITE)         ? "a put"
                                             : "an operation";
    /* The provider's own words when it gave some; tcp and verbs give errno values
     * without words. No empty parentheses either way. */
    char prov[400] = "";
    if (err.prov_errno && *detail)
        snprintf(prov, sizeof prov, " (%s provider error %d: %s)",
                 ofi.info->fabric_attr->prov_name, err.prov_errno, detail);
    else if (err.prov_errno)
        snprintf(prov, sizeof prov, " (%s provider error %d, as an errno: %s)",
                 ofi.info->fabric_attr->prov_name, err.prov_errno, strerror(err.prov_errno));
    int pe = error_target(err.op_context);
    char target[48] = "another PE", who[48] = "the target PE";
    if (pe >= 0) {
        snprintf(target, sizeof target, "PE %d", pe);
        snprintf(who, sizeof who, "PE %d", pe);
    }
    int inside;
    const char *routine = on_progress_thread ? NULL : shoal_routine_now(0, &inside);
    shoal_fatal(routine ? routine : "ofi",
                "%s this PE issued to %s failed: %s%s%s; %s may have exited (see its "
                "message) or the network failed; FI_LOG_LEVEL=warn shows the provider's view",
                op, target, fi_strerror(err.err ? err.err : FI_EOTHER), prov,
                on_progress_thread ? " (found by the progress thread while the program ran "
                                     "outside Shoal)"
                                   : "",
                who);
}

/* The progress thread found an error entry: the first time it only notes when. */
static int error_left_to_others(void)
{
    if (!on_progress_thread)
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!err_seen.tv_sec && !err_seen.tv_nsec) {
        err_seen = now;
        return 1;
    }
    return (now.tv_sec - err_seen.tv_sec) * 1000000000L + (now.tv_nsec - err_seen.tv_nsec) <
            OFI_ERR_GRACE_NS;
}

void ofi_drain_cq(struct ofi_ctx *c)
{
    struct fi_cq_entry ev[OFI_CQ_BATCH];
    for (;;) {
        ssize_t n = fi_cq_read(c->cq, ev, OFI_CQ_BATCH);
        if (n == -FI_EAGAIN)
            return;
        if (n == -FI_EAVAIL) {
            if (error_left_to_others())
                return;
            cq_error(c);
        }
        if (n < 0)
            ofi_fatal_rc("fi_cq_read", (int)n,
                         "set FI_LOG_LEVEL=warn for the provider's view");
        for (ssize_t i = 0; i < n; i++) {
            /* A put that needed no slot asks for an entry only with quiet_read: its
             * context is its target's tag (ofi_op_ctx). */
            if ((uintptr_t)ev[i].op_context - (uintptr_t)ofi.pe_tag <
                (uintptr_t)shoal.n_pes) {
                c->wdone++;
                continue;
            }
            struct ofi_slot *s = ev[i].op_context;
            c->wdone += (uint64_t)s->write;
            if (s->copy_to)
                memcpy(s->copy_to, s->buf, s->copy_len);
            if (s->done)
                *s->done = 1;
            s->next = c->free_slots;
            c->free_slots = s;
            c->slots_busy--;
        }
        if (n < OFI_CQ_BATCH)
            return;
    }
}

/* Providers refuse a post while they have no room for it, and complete an
 * operation, as long as the target takes to make progress; and while they
 * connect to the target: tcp;ofi_rxm retries connecting to a peer that is gone
 * or never answers for ever, refusing posts or holding them, and says nothing. A
 * launcher ends the job when a PE dies (oshrun does); a PE that lives on without
 * serving the network, or one the network no longer reaches, would leave this
 * PE waiting for ever, so such waits are bounded. */
int ofi_stall_expired(struct timespec *since)
{
    struct timespec now;
    long limit = shoal.cfg.ofi_stall_timeout;
    if (limit <= 0)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!since->tv_sec && !since->tv_nsec) {
        *since = now;
        return 0;
    }
    return now.tv_sec - since->tv_sec >= limit;
}

/* Which of c's bounce slots are in flight (not on the free list). */
static void slots_busy(const struct ofi_ctx *c, int busy[OFI_BOUNCE_SLOTS])
{
    for (int i = 0; i < OFI_BOUNCE_SLOTS; i++)
        busy[i] = 1;
    for (const struct ofi_slot *s = c->free_slots; s; s = s->next)
        busy[s - c->slot] = 0;
}

/* Where the caller knows no target: the PEs c's bounce slots in flight go to (gets
 * and AMOs through slots, medium puts), each once. Found only once the wait has
 * failed, so that no operation pays for keeping a record. */
static void slot_targets(const struct ofi_ctx *c, char *buf, size_t len)
{
    int busy[OFI_BOUNCE_SLOTS], listed[OFI_BOUNCE_SLOTS], n = 0;
    slots_busy(c, busy);
    size_t at = 0;
    for (int i = 0; i < OFI_BOUNCE_SLOTS && at < len; i++) {
        int pe = c->slot[i].pe, seen = 0;
        if (!busy[i])
            continue;
        for (int j = 0; j < n; j++)
            seen |= listed[j] == pe;
        if (seen)
            continue;
        listed[n++] = pe;
        at += (size_t)snprintf(buf + at, len - at, "%s%d", n > 1 ? ", " : "", pe);
    }
}

void ofi_stall_fatal(struct ofi_ctx *c, const char *what, int pe)
{
    char targets[128] = "";
    if (pe >= 0) {
        snprintf(targets, sizeof targets, " (waiting on PE %d)", pe);
    } else {
        char pes[96] = "";
        slot_targets(c, pes, sizeof pes);
        if (pes[0])
            snprintf(targets, sizeof targets,
                     " (operations in flight to PE %s, maybe others)", pes);
    }
    int inside;
    const char *routine = shoal_routine_now(0, &inside);
    shoal_fatal(routine ? routine : "ofi",
                "the %s provider has not moved %s%s for %ld s (no room, or no connection to "
                "the target PE); the target may have exited before any traffic reached it, "
                "or be unreachable or not serving the network (see its message, if any); "
                "check the other PEs and the network, or raise SHMEM_OFI_STALL_TIMEOUT if "
                "PEs compute that long with SHMEM_OFI_PROGRESS_THREAD=0 (0: wait for ever)",
                ofi.info->fabric_attr->prov_name, what, targets, shoal.cfg.ofi_stall_timeout);
}

/* The PE of the slot in flight that a blocking caller's flag belongs to, or -1. */
static int flag_target(const struct ofi_ctx *c, volatile int *done)
{
    int busy[OFI_BOUNCE_SLOTS];
    slots_busy(c, busy);
    for (int i = 0; i < OFI_BOUNCE_SLOTS; i++)
        if (busy[i] && c->slot[i].done == done)
            return c->slot[i].pe;
    return -1;
}

void ofi_progress_others(struct ofi_ctx *c)
{
    struct ofi_ctx *d = ofi.dflt;
    if (d == c)
        return;
    /* Another thread holding it drives it already. */
    if (!ofi.mode.locked) {
        ofi_drain_cq(d);
    } else if (!pthread_mutex_trylock(&d->lock)) {
        ofi_drain_cq(d);
        pthread_mutex_unlock(&d->lock);
    }
}

void ofi_wait_cntr(struct ofi_ctx *c, struct fid_cntr *cntr, uint64_t target,
                   const char *what, int pe)
{
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    struct shoal_backoff b = { 0 };
    struct timespec since = { 0, 0 };
    uint64_t seen = 0, got;
    while ((got = fi_cntr_read(cntr)) < target) {
        if (got != seen) {
            seen = got;
            since = (struct timespec){ 0, 0 };
        }
        if (SHOAL_UNLIKELY(fi_cntr_readerr(cntr))) {
            ofi_drain_cq(c);
            int inside;
            const char *routine = shoal_routine_now(0, &inside);
            shoal_fatal(routine ? routine : "ofi",
                        "%s this PE issued to another PE failed (the provider reported "
                        "no detail); the target PE may have exited (see its message) or the "
                        "network failed; FI_LOG_LEVEL=warn shows the provider's view",
                        what);
        }
        /* Every poll: a failed operation's error may show only on the CQ. */
        ofi_drain_cq(c);
        ofi_progress_others(c);
        ofi_backoff_done(c, &b);
        ofi_stalled(c, what, &since, pe);
    }
}

void ofi_wait_flag(struct ofi_ctx *c, volatile int *done)
{
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    struct shoal_backoff b = { 0 };
    struct timespec since = { 0, 0 };
    while (!*done) {
        ofi_drain_cq(c);
        if (*done)
            break;
        ofi_progress_others(c);
        ofi_backoff_done(c, &b);
        if (SHOAL_UNLIKELY(ofi_stall_expired(&since)))
            ofi_stall_fatal(c, "a get or fetching AMO", flag_target(c, done));
    }
}

struct ofi_slot *ofi_slot_get(struct ofi_ctx *c)
{
    if (SHOAL_UNLIKELY(!c->free_slots)) {
        if (c->more_pending)
            ofi_flush_more(c);
        struct shoal_backoff b = { 0 };
        while (!c->free_slots) {
            ofi_drain_cq(c);
            ofi_progress_others(c);
            ofi_backoff_done(c, &b);
        }
    }
    struct ofi_slot *s = c->free_slots;
    c->free_slots = s->next;
    c->slots_busy++;
    s->copy_to = NULL;
    s->done = NULL;
    s->write = 0;
    return s;
}

/* Another thread's context (a private one's owner, a serialized one's user) is
 * left to it while it uses the context, and driven by other threads (waits, the
 * progress thread) once it has not for OFI_IDLE_NS: it may compute, or wait for
 * something else, with operations in flight that a provider with manual progress
 * moves only when their endpoint is driven (on tcp;ofi_rxm a put the socket did
 * not take at once, a get's answer). The gap keeps drivers off a context in use,
 * where the owner would find its lock taken. */
#define OFI_IDLE_NS 50000u

/* Where another thread's context c stands; called under ofi.ctxs_lock, which
 * guards seen_uses and seen_ns. One with nothing in flight costs two loads. */
enum ctx_state { CTX_DONE, CTX_IN_USE, CTX_LEFT };
static enum ctx_state other_state(struct ofi_ctx *c)
{
    uint64_t uses = __atomic_load_n(&c->uses, __ATOMIC_RELAXED);
    if (uses == __atomic_load_n(&c->done_uses, __ATOMIC_RELAXED))
        return CTX_DONE;
    uint64_t now = ofi_now_ns();
    if (uses != c->seen_uses) {
        c->seen_uses = uses;
        c->seen_ns = now;
        return CTX_IN_USE;
    }
    return now - c->seen_ns >= OFI_IDLE_NS ? CTX_LEFT : CTX_IN_USE;
}

/* Whether c, locked, has operations in flight or held back. Where quiet reads puts
 * back, unsettled ones count: only the owner's quiet can tell they have landed. */
static int in_flight(struct ofi_ctx *c)
{
    return c->slots_busy || c->bundle.slot || c->npws || fi_cntr_read(c->rcntr) < c->reads ||
            ofi_writes_done(c) < c->writes;
}

/* Drives every context's endpoint that this thread may drive: the default one, its
 * own private ones, and other threads' private and serialized ones they have left
 * (other_state). Returns OFI_DROVE_DFLT unless another thread holds the default one
 * (and drives it), plus OFI_OTHERS_BUSY while another thread's context it may drive
 * has operations in flight. */
#define OFI_DROVE_DFLT 1
#define OFI_OTHERS_BUSY 2
static int progress_all(int flush)
{
    /* A flush below may wait, and waiting progresses: the nested call has
     * nothing to add (the wait drives its own context and the default one). */
    static __thread int inside;
    if (inside)
        return OFI_DROVE_DFLT;
    inside = 1;
    int ret = OFI_DROVE_DFLT;
    pthread_mutex_lock(&ofi.ctxs_lock);
    for (struct ofi_ctx *c = ofi.ctxs; c; c = c->next_ctx) {
        int others = ofi.mode.locked && c != ofi.dflt &&
                !(c->private_owned && pthread_equal(c->owner, pthread_self()));
        if (others) {
            enum ctx_state st = other_state(c);
            if (st == CTX_IN_USE)
                ret |= OFI_OTHERS_BUSY;
            if (st != CTX_LEFT)
                continue; /* nothing in flight, or its user is at it */
        }
        if (c->locked && pthread_mutex_trylock(&c->lock)) {
            if (c == ofi.dflt)
                ret &= ~OFI_DROVE_DFLT;
            else if (others)
                ret |= OFI_OTHERS_BUSY;
            continue; /* its holder drives it */
        }
        /* What a session holds back goes out while the PE waits: a peer may be
         * waiting for it. From the progress thread (the PE is away from Shoal), and
         * on another thread's context (its session is its own), only the bundles
         * of puts outside a session (ofi_bundle.c). */
        if (flush && !others)
            ofi_flush_deferred(c);
        else if (c->bundle.slot && !c->bundling)
            ofi_bundle_flush(c);
        ofi_drain_cq(c);
        if (others) {
            if (in_flight(c))
                ret |= OFI_OTHERS_BUSY;
            else /* its user's next call shows in uses */
                __atomic_store_n(&c->done_uses, c->uses, __ATOMIC_RELAXED);
        }
        if (c->locked)
            pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&ofi.ctxs_lock);
    inside = 0;
    return ret;
}

void ofi_progress(void)
{
    /* A thread polling in a wait is busy: marked on every poll, as one poll that
     * serves a peer's get costs 10-50 us of socket calls on a virtual machine,
     * and marks 8 polls apart left OFI_PE_BUSY_NS gaps that woke the thread
     * beside it (a clock read is tens of ns). */
    if (ofi.prog.running) {
        uint64_t now = ofi_now_ns();
        __atomic_store_n(&ofi.prog.pe_busy_ns, now, __ATOMIC_RELAXED);
        if (!shoal_wait.own_core)
            __atomic_store_n(&ofi.prog.pe_drove_ns, now, __ATOMIC_RELAXED);
    }
    progress_all(1);
}

int ofi_progress_thread_wanted(void)
{
    return ofi_switch(shoal.cfg.ofi_progress_thread);
}

int ofi_switch(const char *v)
{
    if (!v || !*v || !strcmp(v, "auto"))
        return -1;
    static const char *const off[] = { "0", "no", "false", "off" };
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (!strcasecmp(v, off[i]))
            return 0;
    return 1;
}

/* Sleeps until the default CQ's wait object or the stop eventfd fires, or
 * OFI_WAKE_MS passes (a safety net should a provider miss a wake-up). The
 * eventfd also carries ofi_progress_kick's wake-ups, which it drains.
 * fi_trywait refuses while the provider holds work of its own, and tcp;ofi_rxm
 * holds some for as long as a peer takes to take a large message off its socket:
 * on 4 PEs over 2 cores the thread drove again at once for 1-5 ms at a time, a
 * thousand times or more without a completion, with its fd not ready, taking the
 * core from the very peer it waited for. So while the last drive completed
 * nothing (moved 0) it waits on the fd all the same, *stuck_ns, doubling up to
 * OFI_POLL_MAX_NS: the fd still wakes it for traffic, and the provider's own work
 * is retried at that pace. Any completion, or a wait trywait allows, resets it. */
static void sleep_on_fd(int moved, long *stuck_ns)
{
    struct fid *cq = &ofi.dflt->cq->fid;
    struct timespec t = { OFI_WAKE_MS / 1000, OFI_WAKE_MS % 1000 * 1000000L };
    if (fi_trywait(ofi.fabric, &cq, 1) != FI_SUCCESS) {
        if (moved) {
            *stuck_ns = OFI_POLL_MIN_NS;
            return; /* events are pending: drive again at once */
        }
        t = (struct timespec){ 0, *stuck_ns };
        if (*stuck_ns < OFI_POLL_MAX_NS)
            *stuck_ns *= 2;
    } else {
        *stuck_ns = OFI_POLL_MIN_NS;
    }
    struct pollfd p[2] = { { ofi.prog.fd, POLLIN, 0 }, { ofi.prog.stop_fd, POLLIN, 0 } };
    /* A bundle opened since the thread last drove (progress_all sends it) and
     * before it was marked asleep, whose PE therefore did not kick it: drive again. */
    __atomic_store_n(&ofi.prog.asleep, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_exchange_n(&ofi.prog.bundle_news, 0, __ATOMIC_SEQ_CST))
        ppoll(p, 2, &t, NULL);
    __atomic_store_n(&ofi.prog.asleep, 0, __ATOMIC_RELAXED);
    uint64_t n;
    if ((p[1].revents & POLLIN) && read(ofi.prog.stop_fd, &n, sizeof n) < 0) {
        /* Nothing to drain: another read took it. */
    }
}

void ofi_progress_kick(void)
{
    uint64_t one = 1;
    /* The first kicker wakes it; a write that fails leaves it to OFI_WAKE_MS. */
    if (__atomic_exchange_n(&ofi.prog.asleep, 0, __ATOMIC_ACQ_REL) &&
        write(ofi.prog.stop_fd, &one, sizeof one) < 0) {
    }
}

/* A waiting PE thread's sleep. Where PEs outnumber cores it is on the default
 * CQ's wait object, so that traffic for this PE wakes it at once: it then drives
 * the provider itself, in place of the parked progress thread (OFI_PARK_NS).
 * With a core of its own, or without the thread and its wait object, a plain
 * sleep. A wait for the default context's own completions (ofi_nap_done) sleeps
 * there longer (shoal_backoff_woken_us): the answers
 * it waits for and the peers' operations it must serve both arrive through that
 * wait object, and shorter naps only spend the CPU those peers need. At 64 PEs
 * over 4 nodes on 2 cores, every PE waking every 50-100 us kept most of them
 * runnable, and a read waited for its target's turn among them. */
static void nap(long us, int done)
{
    if (!ofi.prog.running || ofi.prog.fd < 0 || shoal_wait.own_core) {
        struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
        nanosleep(&t, NULL);
        return;
    }
    if (done)
        us = shoal_backoff_woken_us(us);
    struct fid *cq = &ofi.dflt->cq->fid;
    if (fi_trywait(ofi.fabric, &cq, 1) != FI_SUCCESS)
        return; /* events are pending: drive again at once */
    struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
    struct pollfd p = { ofi.prog.fd, POLLIN, 0 };
    ppoll(&p, 1, &t, NULL);
}

void ofi_nap(long us)
{
    nap(us, 0);
}

void ofi_nap_done(long us)
{
    nap(us, 1);
}

/* Sleeps *ns, and the next time twice as long, up to OFI_POLL_MAX_NS. */
static void sleep_polling(long *ns)
{
    struct timespec t = { 0, *ns };
    nanosleep(&t, NULL);
    if (*ns < OFI_POLL_MAX_NS)
        *ns *= 2;
}

static int pe_busy(void)
{
    return ofi_now_ns() - __atomic_load_n(&ofi.prog.pe_busy_ns, __ATOMIC_RELAXED) <
            OFI_PE_BUSY_NS;
}

/* What the default endpoint's counters have counted: a change means traffic. */
static uint64_t completions(void)
{
    struct ofi_ctx *d = ofi.dflt;
    return fi_cntr_read(d->rcntr) + (d->wcntr ? fi_cntr_read(d->wcntr) : 0);
}

/* Raises this thread's priority OFI_PROGRESS_NICE_UP levels above the PE's, or as
 * far as RLIMIT_NICE allows, where the PE has a core of its own; where it falls
 * short and SHMEM_OFI_LOWER_PE allows, lowers the PE's thread pe (the thread that
 * started it) by the rest, which needs no privilege: the weights' ratio is what
 * counts. Logs what it got. */
static void raise_priority(id_t pe)
{
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int was = getpriority(PRIO_PROCESS, tid);
    if (was == -1 && errno)
        return;
    int got = was, pe_now = was;
    if (shoal_wait.own_core) {
        int want = was - OFI_PROGRESS_NICE_UP < -20 ? -20 : was - OFI_PROGRESS_NICE_UP;
        if (setpriority(PRIO_PROCESS, tid, want) == 0) {
            got = want;
        } else {
            /* RLIMIT_NICE r lets a thread go down to nice 20 - r. */
            struct rlimit r;
            if (getrlimit(RLIMIT_NICE, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
                int floor = 20 - (int)(r.rlim_cur > 40 ? 40 : r.rlim_cur);
                if (floor > want && floor < was && setpriority(PRIO_PROCESS, tid, floor) == 0)
                    got = floor;
            }
        }
        int lower = OFI_PROGRESS_NICE_UP - (was - got);
        if (shoal.cfg.ofi_lower_pe && lower > 0) {
            int to = was + lower > 19 ? 19 : was + lower;
            if (setpriority(PRIO_PROCESS, pe, to) == 0)
                pe_now = to;
        }
    }
    char pe_nice[64] = "";
    if (pe_now != was)
        snprintf(pe_nice, sizeof pe_nice, ", lowered to %d by SHMEM_OFI_LOWER_PE", pe_now);
    SHOAL_LOG(OFI, INFO, "progress thread at nice %d (the PE's: %d%s)%s", got, was, pe_nice,
              !shoal_wait.own_core ? ": PEs share cores"
                      : pe_now - got >= OFI_PROGRESS_NICE_UP || got == -20 || pe_now == 19
                      ? ""
                      : "; raising it needs CAP_SYS_NICE or RLIMIT_NICE (ulimit -e), or "
                        "SHMEM_OFI_LOWER_PE=1 to lower the PE instead");
}

static void *progress_main(void *arg)
{
    on_progress_thread = 1;
    raise_priority((id_t)(intptr_t)arg);
    /* For top and perf; tests look for it once its priority is set. */
    pthread_setname_np(pthread_self(), "shoal-progress");
    long poll_ns = OFI_POLL_MIN_NS, away_ns = OFI_POLL_MIN_NS, stuck_ns = OFI_POLL_MIN_NS;
    int sending = 0; /* the last drive found another thread's context busy */
    while (!__atomic_load_n(&ofi.prog.stop, __ATOMIC_ACQUIRE)) {
        if (SHOAL_UNLIKELY(err_seen.tv_sec || err_seen.tv_nsec)) {
            /* An error entry waits for a PE thread: the CQ's fd stays ready. */
            sleep_polling(&poll_ns);
            progress_all(0);
            continue;
        }
        if (ofi_now_ns() - __atomic_load_n(&ofi.prog.pe_drove_ns, __ATOMIC_RELAXED) <
            OFI_PARK_NS) {
            struct timespec t = { 0, OFI_PARK_NS };
            nanosleep(&t, NULL);
            continue;
        }
        if (pe_busy()) {
            sleep_polling(&away_ns);
            continue;
        }
        uint64_t before = completions();
        int drove = progress_all(0);
        if (!(drove & OFI_DROVE_DFLT)) {
            /* A PE thread is in a wait on the default context and drives it:
             * keep away from it as from a busy PE. */
            sleep_polling(&away_ns);
            continue;
        }
        away_ns = OFI_POLL_MIN_NS;
        if (drove & OFI_OTHERS_BUSY) {
            /* Another thread's context has operations in flight, which the default
             * CQ's wait object does not see: poll while they last (and while their
             * user is at them, to take over once it leaves them). */
            if (!sending)
                poll_ns = OFI_POLL_MIN_NS;
            sending = 1;
            sleep_polling(&poll_ns);
            continue;
        }
        sending = 0;
        if (ofi.prog.fd >= 0) {
            sleep_on_fd(completions() != before, &stuck_ns);
            continue;
        }
        if (completions() != before)
            poll_ns = OFI_POLL_MIN_NS;
        sleep_polling(&poll_ns);
    }
    return NULL;
}

int ofi_progress_thread_start(void)
{
    ofi.prog.stop = 0;
    ofi.prog.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int rc = ofi.prog.stop_fd < 0 ? errno
                                  : pthread_create(&ofi.prog.tid, NULL, progress_main,
                                                   (void *)(intptr_t)syscall(SYS_gettid));
    if (rc) {
        shoal_warn("shmem_init",
                   "cannot start the libfabric progress thread (error %d); "
                   "set SHMEM_OFI_PROGRESS_THREAD=0 or raise the thread limit",
                   rc);
        return -1;
    }
    ofi.prog.running = 1;
    shoal_wait.net_served = 1;
    return 0;
}

void ofi_progress_thread_stop(void)
{
    if (!ofi.prog.running)
        return;
    __atomic_store_n(&ofi.prog.stop, 1, __ATOMIC_RELEASE);
    uint64_t one = 1;
    if (write(ofi.prog.stop_fd, &one, sizeof one) < 0) {
        /* The thread still sees the flag within OFI_WAKE_MS. */
    }
    shoal_wait.net_served = 0;
    pthread_join(ofi.prog.tid, NULL);
    close(ofi.prog.stop_fd);
    ofi.prog.running = 0;
}
