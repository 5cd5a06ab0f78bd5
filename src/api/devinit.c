/* Device-initiated communication (include/shmemx_device.h): the per-PE state device
 * code reads, the command ring and the proxy thread that serves it, and the emu
 * backend's kernel launcher.
 *
 * Device code reaches a PE directly when it may load and store its device heap
 * (this PE, and same-node PEs through the IPC mapping), otherwise it posts commands
 * into a ring in host memory the device reaches (pinned and mapped). One proxy thread
 * per PE takes them in ticket order, in batches of what is posted, and issues them as
 * ordinary non-blocking Shoal operations on a context of its own (neighbouring puts to
 * one PE merged into one), so they take the job's transports (shm, ofi, mpi) and the
 * device routes of transport/dev_route.c. It publishes how many commands are complete
 * (done) after a quiet, which is what device-side quiet waits for; blocking commands
 * (get, g, fetching AMOs, blocking put) are answered in their slot, after the batch's
 * quiet where they need one, and their producer then frees it. A full ring makes producers wait for their slot; the proxy never waits for a
 * producer except for the next ticket to be posted, so nothing deadlocks. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <shmemx_device.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "api/devcmd.h"
#include "api/devinit.h"
#include "core/progress.h"
#include "device/device.h"
#include "env/log.h"

static struct {
    pthread_mutex_t lock;
    struct shmemx_dev_state *st;   /* what device code reads: its device address */
    struct shmemx_dev_state *host; /* the same, as the host sees it */
    struct shmemx_dev_ring *ring;  /* host view */
    struct shmemx_dev_cmd *cmd;    /* host view */
    void *peer_host;               /* host view of the peer table */
    pthread_t proxy;
    int proxy_running;
    int stop;
} di = { .lock = PTHREAD_MUTEX_INITIALIZER };

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static uint64_t ld(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void st(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void futex_wake(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void futex_nap(uint32_t *w, uint32_t val, long us)
{
    struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, &t, NULL, 0);
}

/* ---- the proxy --------------------------------------------------------------------- */

#define AMO_DO(W, ctx, op, d, v, cmp, pe)                                                    \
    do {                                                                                     \
        uint##W##_t *q = (uint##W##_t *)(d), x = (uint##W##_t)(v);                           \
        switch (op) {                                                                        \
        case SHMEMX_DEV_AMO_FETCH: return shmem_ctx_uint##W##_atomic_fetch(ctx, q, pe);      \
        case SHMEMX_DEV_AMO_SET: shmem_ctx_uint##W##_atomic_set(ctx, q, x, pe); return 0;    \
        case SHMEMX_DEV_AMO_SWAP: return shmem_ctx_uint##W##_atomic_swap(ctx, q, x, pe);     \
        case SHMEMX_DEV_AMO_CSWAP:                                                           \
            return shmem_ctx_uint##W##_atomic_compare_swap(ctx, q, (uint##W##_t)(cmp), x,    \
                                                           pe);                              \
        case SHMEMX_DEV_AMO_ADD: return shmem_ctx_uint##W##_atomic_fetch_add(ctx, q, x, pe); \
        case SHMEMX_DEV_AMO_AND: return shmem_ctx_uint##W##_atomic_fetch_and(ctx, q, x, pe); \
        case SHMEMX_DEV_AMO_OR: return shmem_ctx_uint##W##_atomic_fetch_or(ctx, q, x, pe);   \
        case SHMEMX_DEV_AMO_XOR: return shmem_ctx_uint##W##_atomic_fetch_xor(ctx, q, x, pe); \
        }                                                                                    \
    } while (0)

static uint64_t proxy_amo(shmem_ctx_t ctx, unsigned op, unsigned w, char *d, uint64_t v,
                          uint64_t cmp, int pe)
{
    if (w == 4)
        AMO_DO(32, ctx, op, d, v, cmp, pe);
    else if (w == 8)
        AMO_DO(64, ctx, op, d, v, cmp, pe);
    shoal_fatal("shmemx_device proxy", "internal: AMO %u of width %u in the command ring", op,
                w);
}

/* A non-fetching AMO (the producer takes no answer): no round trip to wait for. */
#define AMO_NF(W, ctx, op, d, v, pe)                                                         \
    do {                                                                                     \
        uint##W##_t *q = (uint##W##_t *)(d), x = (uint##W##_t)(v);                           \
        switch (op) {                                                                        \
        case SHMEMX_DEV_AMO_SET: shmem_ctx_uint##W##_atomic_set(ctx, q, x, pe); return;      \
        case SHMEMX_DEV_AMO_ADD: shmem_ctx_uint##W##_atomic_add(ctx, q, x, pe); return;      \
        case SHMEMX_DEV_AMO_AND: shmem_ctx_uint##W##_atomic_and(ctx, q, x, pe); return;      \
        case SHMEMX_DEV_AMO_OR: shmem_ctx_uint##W##_atomic_or(ctx, q, x, pe); return;        \
        case SHMEMX_DEV_AMO_XOR: shmem_ctx_uint##W##_atomic_xor(ctx, q, x, pe); return;      \
        }                                                                                    \
    } while (0)

static void proxy_amo_nf(shmem_ctx_t ctx, unsigned op, unsigned w, char *d, uint64_t v,
                         int pe)
{
    if (w == 4)
        AMO_NF(32, ctx, op, d, v, pe);
    else
        AMO_NF(64, ctx, op, d, v, pe);
    /* fetch, swap, compare-swap without a wait: done, the value dropped */
    proxy_amo(ctx, op, w, d, v, 0, pe);
}

/* Does command c (a copy of a slot that shoal_devcmd_check accepted) with a
 * non-blocking operation; *ret: the answer of a fetching AMO, which is ready at once.
 * Returns 1 when the producer waits for an answer that is ready only after a quiet
 * (blocking put, get and put-with-signal, and g, whose value lands in *v). base: this PE's
 * device heap, from the library's own state (kernels may write the shared one). */
static int proxy_exec(shmem_ctx_t ctx, char *base, const struct shmemx_dev_cmd *c,
                      uint64_t *v, uint64_t *ret)
{
    unsigned kind = c->op & 0xff, amo = (c->op >> 8) & 0xff, w = (c->op >> 16) & 0xff;
    int wait = (c->op & SHMEMX_DEV_WAIT) != 0;
    switch (kind) {
    case SHMEMX_DEV_OP_PUT:
        shmem_ctx_putmem_nbi(ctx, base + c->dst, base + c->src, c->len, c->pe);
        return wait;
    case SHMEMX_DEV_OP_GET:
        shmem_ctx_getmem_nbi(ctx, base + c->dst, base + c->src, c->len, c->pe);
        return wait;
    case SHMEMX_DEV_OP_P: {
        uint64_t x = c->src; /* on the stack: the blocking put returns once it is read */
        shmem_ctx_putmem(ctx, base + c->dst, &x, w, c->pe);
        return 0;
    }
    case SHMEMX_DEV_OP_G:
        *v = 0;
        shmem_ctx_getmem_nbi(ctx, v, base + c->src, w, c->pe);
        return 1;
    case SHMEMX_DEV_OP_AMO:
        if (!wait) {
            proxy_amo_nf(ctx, amo, w, base + c->dst, c->src, c->pe);
            return 0;
        }
        *ret = proxy_amo(ctx, amo, w, base + c->dst, c->src, c->len, c->pe);
        return 0;
    case SHMEMX_DEV_OP_PUT_SIGNAL: {
        int sig_op = c->op & SHMEMX_DEV_SIG_ADD ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        uint64_t *sig = (uint64_t *)(base + c->sig);
        shmem_ctx_putmem_signal_nbi(ctx, base + c->dst, base + c->src, c->len, sig, c->signal,
                                    sig_op, c->pe);
        return wait;
    }
    }
    shoal_fatal("shmemx_device proxy", "internal: command %u in the command ring", kind);
}

/* Ends the job over a command that the check refused, naming it and what is wrong. */
__attribute__((noreturn)) static void proxy_refuse(const struct shmemx_dev_cmd *c,
                                                   uint64_t ticket, const char *why)
{
    char cmd[256], more[160] = "";
    shoal_devcmd_describe(c, cmd, sizeof cmd);
    if (shoal.cfg.debug)
        snprintf(more, sizeof more, " [ticket %llu of ring slot %llu, device heap at %p]",
                 (unsigned long long)ticket,
                 (unsigned long long)(ticket & (uint64_t)(shoal.cfg.device_ring - 1)),
                 (void *)shoal.seg[SHOAL_SEG_DEVICE].base);
    shoal_fatal("shmemx_device proxy",
                "refused a kernel's command %s: %s; the command ring takes only what "
                "shmemx_device.h's routines post (a kernel wrote into the ring's memory, "
                "or passed a bad PE or address); fix the kernel%s",
                cmd, why, more);
}

/* The proxy takes up to this many posted commands from the ring at a time, issues
 * them all, then quiets once for those whose producers wait. */
#define BATCH 64

/* A put the proxy has not issued yet, which the next put may extend. */
struct run {
    int pe; /* -1: none */
    uint64_t dst, src, len;
};

static void run_flush(shmem_ctx_t ctx, char *base, struct run *u)
{
    if (u->pe >= 0)
        shmem_ctx_putmem_nbi(ctx, base + u->dst, base + u->src, u->len, u->pe);
    u->pe = -1;
}

/* Neighbouring puts to one PE whose both ranges continue the run's become one put
 * (commands already checked: each range is inside the heap, so their union is). */
static int run_extend(struct run *u, const struct shmemx_dev_cmd *c)
{
    if (u->pe != c->pe || c->dst != u->dst + u->len || c->src != u->src + u->len)
        return 0;
    u->len += c->len;
    return 1;
}

/* After shmem_finalize has asked the proxy to stop, kernels have ended: a ticket not
 * posted within this long never will be (a kernel that died mid-post, or one that
 * wrote the ring's head). */
#define STOP_GRACE_US 1e6

/* Answers the blocking command of ticket t; its producer then frees the slot. */
static void answer(uint64_t t, uint64_t v)
{
    struct shmemx_dev_cmd *slot = &di.cmd[t & (uint64_t)(shoal.cfg.device_ring - 1)];
    __atomic_store_n(&slot->ret, v, __ATOMIC_RELAXED);
    st(&slot->seq, t + 2);
}

/* shmem_finalize waits for tickets that will never be posted: ends the job. */
__attribute__((noreturn)) static void proxy_stranded(uint64_t head, uint64_t c)
{
    if (head < c)
        shoal_fatal("shmem_finalize",
                    "the device command ring's head (%llu) is behind the %llu commands the "
                    "proxy has done: a kernel wrote into the ring's memory; fix the kernel",
                    (unsigned long long)head, (unsigned long long)c);
    shoal_fatal("shmem_finalize",
                "%llu tickets of the device command ring were taken but never posted (a "
                "kernel still running or ended mid-command, or one that wrote into the "
                "ring's memory); end every kernel before shmem_finalize",
                (unsigned long long)(head - c));
}

static void *proxy_main(void *arg)
{
    (void)arg;
    char *base = (char *)shoal.seg[SHOAL_SEG_DEVICE].base;
    uint64_t heap_size = shoal.seg[SHOAL_SEG_DEVICE].size;
    char why[200];
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx))
        ctx = SHMEM_CTX_DEFAULT; /* shared, and thread-safe at SHMEM_THREAD_MULTIPLE */
    struct shmemx_dev_ring *r = di.ring;
    uint64_t slots = (uint64_t)shoal.cfg.device_ring, c = 0, since = 0;
    struct shmemx_dev_cmd batch[BATCH];
    uint64_t val[BATCH]; /* the values of the batch's g */
    int owed[BATCH];     /* answers that wait for the batch's quiet */
    int dirty = 0;
    long spin_us = shoal.cfg.device_proxy_spin_us;
    /* Kernels that cannot make a system call (GPUs) only ring the bell: short naps. */
    long nap_us = shoal_dev->host_kernels ? 100000 : 50;
    double idle_since = 0, stop_since = 0;
    struct shoal_backoff b = { 0 };
    for (;;) {
        unsigned n = 0;
        while (n < BATCH && n < slots) {
            struct shmemx_dev_cmd *slot = &di.cmd[(c + n) & (slots - 1)];
            if (ld(&slot->seq) != c + n + 1)
                break;
            batch[n] = *slot;
            /* The copy is checked: the kernel may change the slot meanwhile. */
            if (SHOAL_UNLIKELY(shoal_devcmd_check(&batch[n], heap_size, shoal.n_pes, why,
                                                  sizeof why)))
                proxy_refuse(&batch[n], c + n, why);
            if (!(batch[n].op & SHMEMX_DEV_WAIT))
                st(&slot->seq, c + n + slots); /* the copy is all the proxy needs */
            n++;
        }
        if (n) {
            struct run u = { .pe = -1 };
            uint64_t merged = 0;
            int answers = 0;
            for (unsigned i = 0; i < n; i++) {
                const struct shmemx_dev_cmd *k = &batch[i];
                int wait = (k->op & SHMEMX_DEV_WAIT) != 0;
                owed[i] = 0;
                /* Puts gather into runs; anything else issues the run first, so the
                 * context sees the commands in ticket order. */
                if ((k->op & 0xff) == SHMEMX_DEV_OP_PUT) {
                    if (run_extend(&u, k)) {
                        merged++;
                    } else {
                        run_flush(ctx, base, &u);
                        u = (struct run){ k->pe, k->dst, k->src, k->len };
                    }
                    owed[i] = wait;
                } else {
                    uint64_t v = 0;
                    run_flush(ctx, base, &u);
                    owed[i] = proxy_exec(ctx, base, k, &val[i], &v);
                    if (wait && !owed[i])
                        answer(c + i, v); /* fetching AMOs: done already */
                }
                answers += owed[i];
            }
            run_flush(ctx, base, &u);
            dirty = 1;
            if (answers) {
                shmem_ctx_quiet(ctx);
                dirty = 0;
                for (unsigned i = 0; i < n; i++)
                    if (owed[i])
                        answer(c + i, (batch[i].op & 0xff) == SHMEMX_DEV_OP_G ? val[i] : 0);
            }
            c += n;
            since += n;
            __atomic_fetch_add(&r->batches, 1, __ATOMIC_RELAXED);
            if (merged)
                __atomic_fetch_add(&r->merged, merged, __ATOMIC_RELAXED);
            idle_since = stop_since = 0;
            b.polls = 0;
            if (!dirty) {
                since = 0;
                st(&r->done, c);
            }
            /* Under a steady stream, quiet now and then so that done moves. */
            else if (since < BATCH)
                continue;
        }
        if (ld(&r->done) != c) {
            if (dirty)
                shmem_ctx_quiet(ctx);
            dirty = 0;
            since = 0;
            st(&r->done, c);
            continue;
        }
        int stop = __atomic_load_n(&di.stop, __ATOMIC_ACQUIRE);
        uint64_t head = ld(&r->head);
        if (stop && head == c)
            break;
        double t = now_us();
        if (stop) {
            if (stop_since == 0)
                stop_since = t;
            if (t - stop_since > STOP_GRACE_US || head < c)
                proxy_stranded(head, c);
        }
        if (idle_since == 0)
            idle_since = t;
        if (t - idle_since < (double)spin_us || stop) {
            shoal_backoff(&b);
            continue;
        }
        /* Asleep: a producer that sees asleep after posting rings the bell (the seq_cst
         * fences on both sides make one of the two see the other). */
        struct shmemx_dev_cmd *slot = &di.cmd[c & (slots - 1)];
        uint32_t bell = __atomic_load_n(&r->bell, __ATOMIC_ACQUIRE);
        __atomic_store_n(&r->asleep, 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (ld(&slot->seq) != c + 1 && !__atomic_load_n(&di.stop, __ATOMIC_ACQUIRE))
            futex_nap(&r->bell, bell, nap_us);
        __atomic_store_n(&r->asleep, 0, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&r->bell, __ATOMIC_ACQUIRE) != bell)
            __atomic_fetch_add(&r->wakes, 1, __ATOMIC_RELAXED);
        shoal_progress();
        idle_since = 0;
    }
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    return NULL;
}

/* ---- the state ----------------------------------------------------------------------- */

/* Host memory the device reaches; *dev its device address. */
static void *pinned(size_t size, void **dev, const char *what)
{
    void *p = shoal_dev->host_alloc(size, dev);
    if (!p)
        shoal_fatal("shmemx_device_state",
                    "the %s device cannot give %zu bytes of host memory it reaches for %s",
                    shoal_dev->name, size, what);
    return p;
}

static void state_create(void)
{
    const char *fn = "shmemx_device_state";
    if (!shoal_dev || !shoal_tp.dev_peer)
        shoal_fatal(fn,
                    "device-initiated communication needs a device heap; set "
                    "SHMEM_SYMMETRIC_SIZE_DEVICE (and SHOAL_DEVICE)");
    if (!shoal_dev->host_alloc || !shoal_dev->kernel_ptr)
        shoal_fatal(fn,
                    "the %s device backend offers no device-initiated communication; "
                    "use cuda or emu, or host-initiated routines",
                    shoal_dev->name);
    int n = shoal.n_pes, proxy = 0;
    void *st_dev, *peer_dev;
    struct shmemx_dev_state *s = pinned(sizeof *s, &st_dev, "its state");
    char **peer = pinned((size_t)n * sizeof *peer, &peer_dev, "its peer table");
    for (int pe = 0; pe < n; pe++) {
        int direct =
                pe == shoal.my_pe || (shoal_tp.dev_peer[pe] && !shoal.cfg.device_proxy_all);
        peer[pe] = direct ? shoal_dev->kernel_ptr(shoal_tp.dev_peer[pe]) : NULL;
        if (direct && !peer[pe])
            shoal_fatal(fn, "the %s device cannot map PE %d's device heap for kernels",
                        shoal_dev->name, pe);
        proxy |= !direct;
    }
    s->my_pe = shoal.my_pe;
    s->n_pes = n;
    /* Device AMOs and host-path AMOs on device memory (a lock, transport/dev_route.c) are
     * not atomic with each other: when some PE is reached through the proxy, every
     * device AMO takes it, so that all of them meet in one place. */
    s->direct_amo = !proxy;
    s->heap_base = shoal.seg[SHOAL_SEG_DEVICE].base;
    s->heap_size = shoal.seg[SHOAL_SEG_DEVICE].size;
    s->peer = peer_dev;
    if (proxy) {
        long slots = shoal.cfg.device_ring;
        if (slots < 4 || (slots & (slots - 1)) || slots > (1L << 24))
            shoal_fatal(fn, "SHOAL_DEVICE_RING=%ld must be a power of two from 4 to 16M",
                        slots);
        if (shoal.thread_level != SHMEM_THREAD_MULTIPLE)
            shoal_fatal(fn,
                        "device-initiated communication with PEs it cannot reach "
                        "directly (other nodes) runs a proxy thread; initialize with "
                        "shmem_init_thread(SHMEM_THREAD_MULTIPLE, ...)");
        void *ring_dev, *cmd_dev;
        di.ring = pinned(sizeof *di.ring, &ring_dev, "its command ring");
        di.cmd = pinned((size_t)slots * sizeof *di.cmd, &cmd_dev, "its command ring");
        di.ring->slots = (uint32_t)slots;
        for (long i = 0; i < slots; i++)
            di.cmd[i].seq = (uint64_t)i;
        di.ring->state = SHMEMX_DEV_PROXY_RUNNING;
        s->ring = ring_dev;
        s->cmd = cmd_dev;
    }
    di.host = s;
    di.peer_host = peer;
    if (proxy) {
        int rc = pthread_create(&di.proxy, NULL, proxy_main, NULL);
        if (rc)
            shoal_fatal(fn, "cannot start the proxy thread: %s", strerror(rc));
        di.proxy_running = 1;
        SHOAL_LOG(DEVICE, INFO, "device proxy started: ring of %u commands",
                  (unsigned)di.ring->slots);
    }
    __atomic_store_n(&di.st, st_dev, __ATOMIC_RELEASE);
}

struct shmemx_dev_state *shmemx_device_state(void)
{
    struct shmemx_dev_state *s = __atomic_load_n(&di.st, __ATOMIC_ACQUIRE);
    if (SHOAL_LIKELY(s))
        return s;
    shoal_require_init(__func__);
    pthread_mutex_lock(&di.lock);
    if (!di.st)
        state_create();
    pthread_mutex_unlock(&di.lock);
    return di.st;
}
SHOAL_PROFILED(shmemx_device_state)

void shmemx_device_wake_proxy(void)
{
    struct shmemx_dev_ring *r = di.ring;
    if (!r)
        return;
    __atomic_fetch_add(&r->bell, 1, __ATOMIC_SEQ_CST);
    futex_wake(&r->bell);
}
SHOAL_PROFILED(shmemx_device_wake_proxy)

void shmemx_device_nap(void)
{
    struct timespec t = { 0, 20000 };
    nanosleep(&t, NULL);
}
SHOAL_PROFILED(shmemx_device_nap)

void shmemx_device_abort(const char *routine, const char *what)
{
    shoal_fatal(routine, "%s", what);
}
SHOAL_PROFILED(shmemx_device_abort)

void shmemx_device_quiet(void)
{
    shoal_require_init(__func__);
    struct shmemx_dev_ring *r = di.ring;
    if (!r)
        return;
    uint64_t t = ld(&r->head);
    struct shoal_backoff b = { 0 };
    while (ld(&r->done) < t) {
        if (__atomic_load_n(&r->asleep, __ATOMIC_ACQUIRE))
            shmemx_device_wake_proxy();
        shoal_backoff(&b);
    }
}
SHOAL_PROFILED(shmemx_device_quiet)

/* ---- emu kernels --------------------------------------------------------------------- */

/* A barrier of a group of kernel threads: the last to arrive starts the next round. */
struct bar {
    uint32_t arrived, round;
};

static void bar_wait(struct bar *b, uint32_t n)
{
    uint32_t round = __atomic_load_n(&b->round, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == n) {
        __atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&b->round, round + 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &b->round, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
        return;
    }
    while (__atomic_load_n(&b->round, __ATOMIC_ACQUIRE) == round)
        futex_nap(&b->round, round, 10000);
}

#define LAUNCH_MAX 1024
#define WARPS (LAUNCH_MAX / SHMEMX_DEV_EMU_WARP)

struct launch {
    void (*kernel)(int, int, void *);
    void *arg;
    int n;
    int left; /* threads still running */
    struct bar block, warp[WARPS];
};
struct lane {
    struct launch *l;
    int i;
};

/* The kernel thread this is, for the warp and block forms. */
static __thread struct lane *cur_lane;

static void *lane_main(void *p)
{
    struct lane *ln = p;
    cur_lane = ln;
    ln->l->kernel(ln->i, ln->l->n, ln->l->arg);
    __atomic_fetch_sub(&ln->l->left, 1, __ATOMIC_RELEASE);
    return NULL;
}

static struct lane *lane_of(const char *routine)
{
    struct lane *ln = cur_lane;
    if (!ln)
        shoal_fatal(routine,
                    "the warp and block forms are for emu kernel threads "
                    "(shmemx_device_launch); call the thread form here");
    return ln;
}

int shmemx_device_group(int warp, int *rank, const char *routine)
{
    struct lane *ln = lane_of(routine);
    if (!warp) {
        *rank = ln->i;
        return ln->l->n;
    }
    int first = ln->i - ln->i % SHMEMX_DEV_EMU_WARP, left = ln->l->n - first;
    *rank = ln->i - first;
    return left < SHMEMX_DEV_EMU_WARP ? left : SHMEMX_DEV_EMU_WARP;
}
SHOAL_PROFILED(shmemx_device_group)

void shmemx_device_group_sync(int warp, const char *routine)
{
    int rank, n = shmemx_device_group(warp, &rank, routine);
    struct lane *ln = cur_lane;
    bar_wait(warp ? &ln->l->warp[ln->i / SHMEMX_DEV_EMU_WARP] : &ln->l->block, (uint32_t)n);
}
SHOAL_PROFILED(shmemx_device_group_sync)

void shmemx_device_launch(void (*kernel)(int thread, int nthreads, void *arg), int nthreads,
                          void *arg)
{
    shoal_require_init(__func__);
    shmemx_device_state();
    if (!shoal_dev->host_kernels)
        shoal_fatal(__func__,
                    "the %s device runs its own kernels; launch them with its runtime "
                    "(CUDA: <<<...>>> after shmemx_cuda_bind())",
                    shoal_dev->name);
    if (!kernel || nthreads < 1 || nthreads > LAUNCH_MAX)
        shoal_fatal(__func__, "needs a kernel and 1 to %d threads (got %d)", LAUNCH_MAX,
                    nthreads);
    struct launch l = { .kernel = kernel, .arg = arg, .n = nthreads, .left = nthreads };
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    struct lane *lanes = calloc((size_t)nthreads, sizeof *lanes);
    if (!th || !lanes)
        shoal_fatal(__func__, "out of memory for %d kernel threads", nthreads);
    for (int i = 0; i < nthreads; i++) {
        lanes[i] = (struct lane){ &l, i };
        int rc = pthread_create(&th[i], NULL, lane_main, &lanes[i]);
        if (rc)
            shoal_fatal(__func__, "cannot start kernel thread %d of %d: %s", i, nthreads,
                        strerror(rc));
    }
    /* The host thread drives the network meanwhile, as a PE waiting for a kernel with
     * a GPU's runtime would not: peers' operations on this PE may need it. */
    struct shoal_backoff b = { 0 };
    while (__atomic_load_n(&l.left, __ATOMIC_ACQUIRE) > 0)
        shoal_backoff(&b);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    free(th);
    free(lanes);
    shmemx_device_quiet();
}
SHOAL_PROFILED(shmemx_device_launch)

/* ---- shutdown ------------------------------------------------------------------------ */

void shoal_devinit_fini(void)
{
    if (!di.st)
        return;
    if (di.proxy_running) {
        /* The proxy drains the ring (commands posted and tickets taken) first. */
        __atomic_store_n(&di.stop, 1, __ATOMIC_RELEASE);
        shmemx_device_wake_proxy();
        pthread_join(di.proxy, NULL);
        di.proxy_running = 0;
        SHOAL_LOG(DEVICE, INFO, "device proxy stopped after %llu batches, %llu puts merged",
                  (unsigned long long)di.ring->batches, (unsigned long long)di.ring->merged);
        __atomic_store_n(&di.ring->state, SHMEMX_DEV_PROXY_STOPPED, __ATOMIC_RELEASE);
    }
    /* Device code must have ended: what it reads is freed now. */
    if (di.ring) {
        shoal_dev->host_free(di.cmd);
        shoal_dev->host_free(di.ring);
    }
    shoal_dev->host_free(di.peer_host);
    shoal_dev->host_free(di.host);
    di.st = di.host = NULL;
    di.ring = NULL;
    di.cmd = NULL;
    di.peer_host = NULL;
    di.stop = 0;
}
