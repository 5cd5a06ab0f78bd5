/* AMOs as Shoal's own messages over MPI point-to-point (SHOAL_MPI_AMO=msg):
 *   fetching AMO  a request to the target and its reply (the old value);
 *   other AMO     one request, one way; the context notes its target;
 *   quiet, fence  a flush request to each noted target, which answers once it has
 *                 applied every earlier request of this PE (MPI does not let messages
 *                 from one sender overtake each other on one communicator);
 *   to itself     the CPU atomic at once.
 * The target applies each request with a CPU atomic on its own memory, so AMOs stay
 * atomic with each other whoever sends them, and with same-node PEs' CPU atomics. A
 * progress thread serves requests while the program computes; Shoal's own waits, a
 * fetching AMO waiting for its reply and quiet serve them too (mpi_progress). Both
 * take serve_lock, so one PE's requests are applied in the order they arrived. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "transport/mpi/mpi_tr.h"

enum { MSG_POST, MSG_FETCH, MSG_FLUSH };

struct amo_msg {
    uint8_t kind, op, seg, wide;
    int32_t tag; /* the sender's reply tag (MSG_FETCH, MSG_FLUSH) */
    uint64_t off, v, cmp;
};

/* Replies go to the thread that asked, by a tag of its own: each thread has at most
 * one fetching AMO or flush outstanding, so (PE, tag) names it. */
static __thread int my_tag = -1;

static int reply_tag(void)
{
    if (SHOAL_UNLIKELY(my_tag < 0))
        my_tag = (int)(__atomic_fetch_add(&mt.next_tag, 1, __ATOMIC_RELAXED) %
                       (unsigned)mt.tag_ub);
    return my_tag;
}

static uint64_t load_operand(const void *p, int wide)
{
    if (wide) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t apply(const struct amo_msg *m, int fetching, int from)
{
    size_t w = m->wide ? 8 : 4;
    if (SHOAL_UNLIKELY(m->seg >= SHOAL_NSEGS || m->off + w > mt.st->seg[m->seg].size))
        MT_FATAL("shmem_atomic",
                 "PE %d sent an AMO to segment %d, offset %llu, outside "
                 "this PE's symmetric memory; every PE must run the same program with the "
                 "same SHMEM_SYMMETRIC_SIZE",
                 from, (int)m->seg, (unsigned long long)m->off);
    uintptr_t base =
            m->seg == SHOAL_SEG_DEVICE ? mt.tp->dev_nic_base : mt.st->seg[m->seg].base;
    void *p = (void *)(base + m->off);
    enum shoal_amo_op op = (enum shoal_amo_op)m->op;
    if (w == 4)
        return shoal_cpu_amo32(p, op, (uint32_t)m->v, (uint32_t)m->cmp, fetching,
                               __ATOMIC_SEQ_CST);
    return shoal_cpu_amo64(p, op, m->v, m->cmp, fetching, __ATOMIC_SEQ_CST);
}

/* How a request is taken off the network, chosen per MPI library from measurements
 * (2 PEs, one node, docs/transports.md). Open MPI: receives posted ahead, from any PE,
 * which MPI matches in the order they were posted; served from the oldest, each posted
 * again behind the others once read, they keep every PE's requests in the order it sent
 * them, and a request costs no probe and no copy out of MPI's unexpected messages
 * (2 PEs: fetch 0.74 us against 0.88 with a probe, inc 0.13 against 0.19). MPICH: a
 * matched probe, since its receives from any source are posted to shared memory and
 * network both, and each posted one lengthens the search for every reply (fetch-add
 * 1.23 us with 64 posted, 1.04 with the probe). */
#ifdef MPICH_VERSION
static void requests_open(void) {}
static void requests_close(void) {}

static int request_next(struct amo_msg *m, int *from)
{
    int flag;
    MPI_Message h;
    MPI_Status st;
    MPI_Improbe(MPI_ANY_SOURCE, 0, mt.amo_req, &flag, &h, &st);
    if (!flag)
        return 0;
    MPI_Mrecv(m, (int)sizeof *m, MPI_BYTE, &h, &st);
    *from = st.MPI_SOURCE;
    return 1;
}
#else
#define RING 64
static struct amo_msg ring_msg[RING];
static MPI_Request ring_req[RING];
static unsigned ring_head; /* the oldest posted receive; under serve_lock */

static void requests_open(void)
{
    for (int i = 0; i < RING; i++)
        MPI_Recv_init(&ring_msg[i], (int)sizeof ring_msg[i], MPI_BYTE, MPI_ANY_SOURCE, 0,
                      mt.amo_req, &ring_req[i]);
    MPI_Startall(RING, ring_req);
    ring_head = 0;
}

static void requests_close(void)
{
    for (int i = 0; i < RING; i++) {
        MPI_Cancel(&ring_req[i]);
        MPI_Wait(&ring_req[i], MPI_STATUS_IGNORE);
        MPI_Request_free(&ring_req[i]);
    }
}

static int request_next(struct amo_msg *m, int *from)
{
    int flag;
    MPI_Status st;
    MPI_Test(&ring_req[ring_head], &flag, &st);
    if (!flag)
        return 0;
    *m = ring_msg[ring_head];
    *from = st.MPI_SOURCE;
    MPI_Start(&ring_req[ring_head]);
    ring_head = (ring_head + 1) % RING;
    return 1;
}
#endif

int mpi_msg_serve(void)
{
    if (pthread_mutex_trylock(&mt.serve_lock))
        return 0; /* another thread is serving */
    int n = 0;
    struct amo_msg m;
    int from;
    while (request_next(&m, &from)) {
        n++;
        if (m.kind == MSG_POST) {
            apply(&m, 0, from);
        } else if (m.kind == MSG_FETCH) {
            uint64_t old = apply(&m, 1, from);
            uint32_t old32 = (uint32_t)old;
            MPI_Send(m.wide ? (void *)&old : (void *)&old32, m.wide ? 8 : 4, MPI_BYTE, from,
                     m.tag, mt.amo_rep);
        } else {
            MPI_Send(NULL, 0, MPI_BYTE, from, m.tag, mt.amo_rep);
        }
    }
    pthread_mutex_unlock(&mt.serve_lock);
    return n;
}

/* Flushes in flight at once, at most; also how many fetching _nbi AMOs a context
 * keeps in flight before it completes them. */
#define BATCH 64
/* A waiting thread serves this PE's requests once in SERVE_EVERY polls of its own
 * replies (a peer may be waiting on this PE while this PE waits on it), and gives the
 * CPU away once in YIELD_EVERY: a reply that has not come by then is from a PE that
 * may need this CPU (more PEs than CPUs), and on an idle CPU a yield is a system call
 * of about the time of one poll. */
#define SERVE_EVERY 8
#define YIELD_EVERY 32

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* A PE's AMO thread answers within SHOAL_MPI_AMO_POLL_US even while it computes, so
 * an answer that has not come for SHOAL_MPI_STALL_TIMEOUT seconds never will: the PE
 * has finalized (a program that left AMOs or a quiet for it after its last barrier),
 * died without its launcher ending the job, or hangs with its thread. */
static _Noreturn void stalled(const char *routine, int pe)
{
    MT_FATAL(routine,
             "PE %d has not answered this PE's %s for %ld s: it has finalized or stopped "
             "serving AMOs; every PE must complete its AMOs to a PE (shmem_quiet, then "
             "shmem_barrier_all) before that PE calls shmem_finalize; raise "
             "SHOAL_MPI_STALL_TIMEOUT if a PE legitimately takes that long (0: wait for "
             "ever)",
             pe, strcmp(routine, "shmem_quiet") ? "fetching AMO" : "quiet",
             mt.st->cfg.mpi_stall_timeout);
}

/* Until r[0..n) complete, serving requests meanwhile; pe[i] is the PE r[i] waits on,
 * named with the routine if it never answers. Statuses rather than
 * MPI_STATUSES_IGNORE, which GCC takes for an array of none in MPICH's prototype. */
static void wait_all(MPI_Request *r, const int *pe, int n, const char *routine)
{
    int done;
    unsigned polls = 0;
    long since = 0, limit = mt.st->cfg.mpi_stall_timeout * 1000000000L;
    MPI_Status st[BATCH];
    for (int at = 0; at < n;) {
        int k = n - at < BATCH ? n - at : BATCH;
        if (MPI_Testall(k, r + at, &done, st), done) {
            at += k;
            continue;
        }
        if (++polls % SERVE_EVERY == 0)
            mpi_msg_serve();
        if (polls % YIELD_EVERY == 0)
            sched_yield();
        if (SHOAL_UNLIKELY(polls % 4096 == 0 && limit > 0)) {
            long t = now_ns();
            if (!since)
                since = t;
            else if (t - since > limit)
                for (int i = at; i < at + k; i++) {
                    int one;
                    MPI_Test(&r[i], &one, st);
                    if (!one)
                        stalled(routine, pe[i]);
                }
        }
    }
}

static void wait_one(MPI_Request *r, int pe, const char *routine)
{
    wait_all(r, &pe, 1, routine);
}

/* Completes c's fetching _nbi AMOs; the caller holds c->lock where mt.locked. */
static void fetches_complete(struct mpi_ctx *c)
{
    if (c->nfetch) {
        wait_all(c->fetch_req, c->fetch_pe, c->nfetch, "shmem_quiet");
        c->nfetch = 0;
    }
}

/* Notes r, the reply of a fetching _nbi AMO from pe, for quiet. */
static void fetch_note(struct mpi_ctx *c, MPI_Request r, int pe)
{
    if (mt.locked)
        pthread_mutex_lock(&c->lock);
    if (c->nfetch == BATCH)
        fetches_complete(c); /* a bound on what quiet waits for, and on the memory */
    if (c->nfetch == c->fetch_cap) {
        int cap = c->fetch_cap ? c->fetch_cap * 2 : 8;
        MPI_Request *nr = realloc(c->fetch_req, (size_t)cap * sizeof *nr);
        if (nr)
            c->fetch_req = nr;
        int *np = nr ? realloc(c->fetch_pe, (size_t)cap * sizeof *np) : NULL;
        if (!nr || !np)
            MT_FATAL("shmem_atomic_fetch_nbi",
                     "out of memory for the fetching AMOs in flight");
        c->fetch_pe = np;
        c->fetch_cap = cap;
    }
    c->fetch_req[c->nfetch] = r;
    c->fetch_pe[c->nfetch++] = pe;
    if (mt.locked)
        pthread_mutex_unlock(&c->lock);
}

void mpi_msg_amo(struct mpi_ctx *c, const struct shoal_amo *a, int pe, int nbi)
{
    int wide = shoal_amo_width(a->type) == 8;
    struct amo_msg m = { .kind = a->fetch ? MSG_FETCH : MSG_POST,
                         .op = (uint8_t)a->op,
                         .seg = (uint8_t)a->seg,
                         .wide = (uint8_t)wide,
                         .off = a->off,
                         .v = a->operand ? load_operand(a->operand, wide) : 0,
                         .cmp = a->op == SHOAL_AMO_CSWAP ? load_operand(a->compare, wide)
                                                         : 0 };
    if (pe == mt.st->my_pe) {
        uint64_t old = apply(&m, a->fetch != NULL, pe);
        if (a->fetch) {
            uint32_t old32 = (uint32_t)old;
            memcpy(a->fetch, wide ? (void *)&old : (void *)&old32, wide ? 8 : 4);
        }
        return;
    }
    if (!a->fetch) {
        MPI_Send(&m, (int)sizeof m, MPI_BYTE, pe, 0, mt.amo_req);
        /* Noted after sending, so a concurrent quiet that clears the note has sent its
         * flush after this request. */
        uint64_t *w = &c->msg_pes[pe >> 6], bit = 1ull << (pe & 63);
        if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
            __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
        if (!__atomic_load_n(&c->msg_any, __ATOMIC_RELAXED))
            __atomic_store_n(&c->msg_any, 1, __ATOMIC_RELEASE);
        return;
    }
    /* The reply lands in the caller's buffer: one thread's replies from one PE match
     * its receives in the order posted, which is the order the PE answers them. */
    MPI_Request r;
    m.tag = reply_tag();
    MPI_Irecv(a->fetch, wide ? 8 : 4, MPI_BYTE, pe, m.tag, mt.amo_rep, &r);
    MPI_Send(&m, (int)sizeof m, MPI_BYTE, pe, 0, mt.amo_req);
    if (nbi)
        fetch_note(c, r, pe);
    else
        wait_one(&r, pe, "shmem_atomic_*");
}

/* A flush request to each PE of c's one-way AMOs (all, or only pe if pe >= 0); each
 * answers once it has applied every earlier request of this PE. */
static void flush_pes(struct mpi_ctx *c, int only)
{
    MPI_Request r[BATCH];
    int pes[BATCH];
    int n = 0, tag = reply_tag();
    struct amo_msg m = { .kind = MSG_FLUSH, .tag = tag };
    for (int w = 0; w < mt.nwords; w++) {
        uint64_t mask = only < 0 ? ~0ull : only / 64 == w ? 1ull << (only % 64) : 0;
        if (!mask)
            continue;
        uint64_t bits = __atomic_fetch_and(&c->msg_pes[w], ~mask, __ATOMIC_ACQ_REL) & mask;
        for (; bits; bits &= bits - 1) {
            int pe = w * 64 + __builtin_ctzll(bits);
            MPI_Irecv(NULL, 0, MPI_BYTE, pe, tag, mt.amo_rep, &r[n]);
            MPI_Send(&m, (int)sizeof m, MPI_BYTE, pe, 0, mt.amo_req);
            pes[n] = pe;
            if (++n == BATCH) {
                wait_all(r, pes, n, "shmem_quiet");
                n = 0;
            }
        }
    }
    wait_all(r, pes, n, "shmem_quiet");
}

static void fetches_settle(struct mpi_ctx *c)
{
    if (mt.locked)
        pthread_mutex_lock(&c->lock);
    fetches_complete(c);
    if (mt.locked)
        pthread_mutex_unlock(&c->lock);
}

void mpi_msg_quiet(struct mpi_ctx *c)
{
    fetches_settle(c);
    if (!__atomic_load_n(&c->msg_any, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&c->msg_any, 0, __ATOMIC_RELAXED);
    flush_pes(c, -1);
}

/* The fetching _nbi AMOs all complete (they are few, and quiet would wait for them
 * anyway); the one-way ones to pe only. */
void mpi_msg_pe_quiet(struct mpi_ctx *c, int pe)
{
    fetches_settle(c);
    if (__atomic_load_n(&c->msg_any, __ATOMIC_ACQUIRE) &&
        (__atomic_load_n(&c->msg_pes[pe / 64], __ATOMIC_RELAXED) & (1ull << (pe % 64))))
        flush_pes(c, pe);
}

/* After a request the thread polls without pause for SPIN_NS, so that a stream of
 * AMOs (or a lock's tries) finds it awake; then it sleeps between polls, doubling from
 * 1 us to SHOAL_MPI_AMO_POLL_US: a target that computes answers the first request of
 * a burst within about that, and an idle PE's thread costs a poll of about a
 * microsecond that often. While a thread of the PE is inside the transport
 * (mt.inside) it serves requests itself, and this one only sleeps, backing off the
 * same way: a poll then would take MPI's locks from under the program's call (with
 * the PEs pinned, on the CPU the program runs on: a holder of a spin lock preempted
 * by a thread that spins on it for a time slice; Open MPI's 8-byte get took 10 us,
 * not 0.5, with polls once a millisecond). */
#define SPIN_NS 200000L

static void *progress_thread(void *arg)
{
    (void)arg;
    long last = now_ns(), ns = 1000, max = mt.st->cfg.mpi_amo_poll_us * 1000L;
    while (!__atomic_load_n(&mt.stop, __ATOMIC_ACQUIRE)) {
        int away = !__atomic_load_n(&mt.inside, __ATOMIC_ACQUIRE);
        if (away && mpi_msg_serve()) {
            last = now_ns();
            ns = 1000;
            continue;
        }
        if (away && now_ns() - last < SPIN_NS) {
            /* Free at once on an idle CPU; where PEs outnumber CPUs, it lets the
             * program run, as a spinning thread would not. */
            sched_yield();
            continue;
        }
        struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
        nanosleep(&ts, NULL);
        ns = ns * 2 < max ? ns * 2 : max;
    }
    return NULL;
}

static void msg_free(void)
{
    requests_close();
    pthread_mutex_destroy(&mt.serve_lock);
    MPI_Comm_free(&mt.amo_req);
    MPI_Comm_free(&mt.amo_rep);
}

int mpi_msg_open(void)
{
    void *ub;
    int found;
    MPI_Comm_dup(mt.comm, &mt.amo_req);
    MPI_Comm_dup(mt.comm, &mt.amo_rep);
    MPI_Comm_get_attr(mt.amo_rep, MPI_TAG_UB, &ub, &found);
    mt.tag_ub = found && *(int *)ub > 0 ? *(int *)ub : 32767;
    pthread_mutex_init(&mt.serve_lock, NULL);
    requests_open();
    mt.stop = 0;
    int rc = pthread_create(&mt.thread, NULL, progress_thread, NULL);
    if (rc) {
        mt.host->warn("shmem_init",
                      "SHOAL_MPI_AMO: cannot start the AMO progress thread (%s); "
                      "set SHOAL_MPI_AMO=mpi for MPI's atomics",
                      strerror(rc));
        msg_free();
        return -1;
    }
    mt.thread_on = 1;
    MT_LOG(DEBUG, "AMO progress thread started (tags up to %d, polls at least every %ld us)",
           mt.tag_ub, mt.st->cfg.mpi_amo_poll_us);
    return 0;
}

void mpi_msg_close(void)
{
    /* Every PE has acknowledged its contexts' one-way AMOs (their destroy) when it
     * reaches this barrier, and the thread serves the flushes meanwhile: after it no
     * request is on its way to this PE. */
    MPI_Barrier(mt.comm);
    __atomic_store_n(&mt.stop, 1, __ATOMIC_RELEASE);
    pthread_join(mt.thread, NULL);
    mt.thread_on = 0;
    MT_LOG(DEBUG, "AMO progress thread stopped");
    if (mpi_msg_serve())
        MT_LOG(INFO, "AMO requests arrived after the last barrier; applied");
    msg_free();
}
