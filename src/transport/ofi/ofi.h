/* Private state of the libfabric transport and the inline helpers its hot paths
 * share: remote address and key of a symmetric location, the per-context lock,
 * bounce-slot bookkeeping, and retrying a post the provider refused with EAGAIN.
 *
 * Layout: one fabric, domain and address vector per process. The default context
 * owns an RDM endpoint with its completion queue and counters (one counter for
 * writes and non-fetching AMOs, unless quiet settles puts with reads, ofi_order.c;
 * one for reads and fetching AMOs); contexts share
 * it, except the private and serialized contexts of a SHMEM_THREAD_MULTIPLE
 * program, which own one each (ofi_ctx.c), kept open for later contexts when
 * theirs is destroyed. Peers target the default context's
 * endpoint, the only address in the AV; the segments' MRs belong to it. */
#ifndef SHOAL_OFI_H
#define SHOAL_OFI_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "bootstrap/bootstrap.h"
#include "base/backoff.h"
#include "base/error.h"
#include "env/log.h"
#include "base/state.h"
#include "transport/transport.h"

/* The libfabric API this was compiled against (1.17 where it was written). */
#define OFI_API_VERSION FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)
/* Registered bounce slots per context: medium puts in flight, gets copied out
 * at completion, and the operands and results of AMOs. */
#define OFI_BOUNCE_SLOTS 16
/* Bytes of a slot an AMO uses: operand, compare, result. */
#define OFI_AMO_SLOT_BYTES 24
#define OFI_ADDR_MAX 128
/* Receive queue depth of a context's own endpoint (not the default one, which
 * every peer targets): it receives only the responses to its own operations. */
#define OFI_CTX_RX_SIZE 64
#define OFI_REG_MAX 64
/* Targets of one bundled write: at most this many, and the provider's rma_iov_limit. */
#define OFI_BUNDLE_IOV 8
/* Signals a put-with-signal session (SHMEM_SESSION_OP_PWS) holds back before it
 * sends them behind one fence. */
#define OFI_PWS_MAX 64
/* NICs of a node Shoal chooses among (a libfabric domain each). */
#define OFI_NICS_MAX 16

/* One registered buffer of a context. fctx comes first: the CQ hands back
 * &slot->fctx as the operation's context. */
struct ofi_slot {
    struct fi_context2 fctx;
    struct ofi_slot *next; /* free list */
    char *buf;
    void *copy_to; /* get or fetch: where the data goes at completion */
    size_t copy_len;
    volatile int *done; /* a blocking caller's flag, set at completion */
    int pe;             /* the target, for an error report */
    int write;          /* a put or non-fetching AMO: its completion counts in wdone */
};

/* A cached registration of a local buffer outside the segments (FI_MR_LOCAL). */
struct ofi_reg {
    uintptr_t lo, hi; /* page-aligned range */
    struct fid_mr *mr;
    void *desc;
    uint64_t used; /* clock of the last use: least recent goes first */
};

/* Small puts to one PE held in a bounce slot until they go as one write
 * (ofi_bundle.c): the slot holds the payloads back to back, riov where each goes.
 * An open bundle owes no fence: a put that opens one waits for it first. */
struct ofi_bundle {
    struct ofi_slot *slot; /* NULL when no bundle is open */
    size_t len;
    int pe;
    unsigned n;
    struct fi_rma_iov riov[OFI_BUNDLE_IOV];
};

/* A signal held back by the put-with-signal transform. */
struct ofi_pws {
    int pe, seg;
    uint64_t off, value;
    enum shoal_amo_op op;
};

struct ofi_ctx {
    struct fid_ep *ep;
    struct fid_cq *cq;      /* bounce-slot completions and every error */
    struct fid_cntr *wcntr; /* puts and non-fetching AMOs; NULL with ofi.mode.quiet_read */
    struct fid_cntr *rcntr; /* gets and fetching AMOs */
    uint64_t writes, reads; /* issued so far; quiet waits for the counters to match */
    /* ofi.mode.quiet_read (ofi_order.c): writes complete at least locally (CQ entries of
     * those that ask for one, injected ones once a read settled them); puts since
     * the last settle, and the injected ones among them. With ofi.mode.plain_amo_fetches
     * (quiet_read, shm): the non-fetching AMOs sent as fetching ones (in reads). */
    uint64_t wdone, wunsettled, winject, amo_reads;
    int *dirty; /* the PEs puts went to since the last settle */
    unsigned ndirty;
    /* dirty_since[pe]: 0 when pe is not in dirty, else the fence epoch in which it
     * joined (or was last settled for a fence): below c->epoch, pe owes a settle to
     * the next put or AMO to it (ofi_order.c). */
    uint64_t *dirty_since;
    char *discard; /* registered scratch: settle reads, dropped AMO results */
    struct ofi_slot *free_slots;
    unsigned slots_busy;
    struct ofi_slot slot[OFI_BOUNCE_SLOTS];
    char *slot_mem;
    struct fid_mr *slot_mr;
    void *slot_desc;
    uint64_t more;    /* FI_MORE while a batch session is open */
    int more_pending; /* a posted put still carries FI_MORE: flush before waits */
    int more_pe;      /* where the flush goes: the last batched put's target */
    uint64_t more_addr, more_key;
    /* Fence (ofi_order.c): what the last fences owe the next put or AMO, which
     * calls ofi_fence_wait while it is not 0: OFI_FENCE_ALL, a wait for every
     * earlier operation (counters, or AMOs before the fence); otherwise the number
     * of targets in dirty from before the fence, each owed one read by the first
     * put or AMO to it. epoch: fences so far, plus 1. amos_out: AMOs left in flight
     * since the last full wait. */
    unsigned fence_owed;
    int amos_out;
    int amos_local; /* some of them to this node's PEs, which puts reach by stores */
    uint64_t epoch;
    int direct_pending; /* a direct put's source may still be read: local
                                       completion must wait for the write counter */
    /* Puts that joined bundles beyond one per bundle posted: what turns counts of
     * messages into counts of operations (ofi_pcntr.c). */
    uint64_t bundle_surplus;
    /* Session modes (ofi_session.c), set between session start and stop. */
    int bundling;   /* small puts join bundles, which only this PE's calls send */
    int pws_defer;  /* put-with-signal: signals wait for one fence */
    int unreliable; /* non-fetching AMOs go once through uep */
    struct ofi_bundle bundle;
    int flushing; /* sending what was held back: waits inside must not */
    unsigned npws;
    struct ofi_pws pws[OFI_PWS_MAX];
    struct fid_ep *uep;           /* single-transmit endpoint: no counters, no acks waited */
    struct ofi_trig_op *trig_ops; /* posted triggered operations, freed at quiet */
    struct fid_ep *tep;           /* where they go (ofi_trigger.c), opened at the first */
    struct fid_cntr *tcntr;       /* its write counter */
    uint64_t tdone;               /* what tcntr counted of operations already freed */
    unsigned char *utouched;      /* utouched[pe]: pe got single-transmit AMOs */
    unsigned nutouched;
    /* The last single-transmit AMO, held back so that the next ones to the same word
     * with the same operation fold into it (ofi_amo.c); sent before anything else. */
    int uheld;
    int upe;
    uint64_t uval;
    struct shoal_amo uamo;
    struct ofi_reg reg[OFI_REG_MAX];
    unsigned nreg;
    uint64_t reg_clock;
    int locked;           /* ofi.mode.locked: threads may share it, or other threads
                                 drive it (private and serialized ones too) */
    int private_owned;    /* a private context of a multithreaded PE: owner (the
                                 thread that created it) drives it when it waits */
    pthread_t owner;      /* both under ofi.ctxs_lock */
    pthread_mutex_t lock; /* taken only when locked */
    /* Other threads drive a context of its own once its users leave it (progress_all,
     * ofi_progress.c): uses counts their calls (atomic: drivers read it unlocked),
     * done_uses is uses when it was last found with nothing in flight, and
     * seen_uses/seen_ns the last change of uses a driver saw (under ofi.ctxs_lock). */
    uint64_t uses, done_uses;
    uint64_t seen_uses, seen_ns;
    struct ofi_ctx *next_ctx; /* every context, for progress() */
    struct ofi_ctx *parked;   /* next in ofi.idle, once its context is destroyed */
};

/* Where a PE's segment lives in its own provider's terms. */
struct ofi_remote {
    uint64_t base; /* virtual address of the segment, or 0 for offsets */
    uint64_t key;
};

enum ofi_amo_kind { OFI_AMO_PLAIN, OFI_AMO_FETCH, OFI_AMO_COMPARE, OFI_AMO_KINDS };
#define OFI_AMO_OPS (SHOAL_AMO_XOR + 1)
#define OFI_AMO_TYPES (SHOAL_AMO_UINT64 + 1)

/* What init decided for the whole run, from the provider's attributes and the
 * environment: read, never written, once the transport runs. */
struct ofi_modes {
    size_t inject_size;
    size_t bounce_size; /* slot size: medium puts and gets */
    uint64_t mr_mode;
    /* The endpoint's default completion flags, which the *msg calls must repeat. */
    uint64_t op_flags;
    int mr_local;          /* pass descriptors of registered local buffers */
    int fence_flag;        /* the provider orders with FI_FENCE */
    int writes_ordered;    /* puts and AMOs to a PE land in issue order */
    int atomics_ordered;   /* AMOs to a PE land in issue order (FI_ORDER_ATOMIC_WAW) */
    size_t atomic_bytes;   /* most bytes one native atomic write of bytes may carry */
    int delivery_complete; /* counters count FI_DELIVERY_COMPLETE */
    /* Small puts go out as true injects, with no write counter on the endpoint and
     * no delivery completion; quiet settles them with one read per PE written, which
     * the provider orders after them (FI_ORDER_RMA_RAW). ofi_order.c. */
    int quiet_read;
    int plain_amo_fetches;      /* non-fetching AMOs go as fetching ones (quiet_read, shm) */
    uint64_t put_flags;         /* completion flags of puts: op_flags, or 0 with quiet_read */
    int locked;                 /* threads share contexts or the progress thread runs */
    int emulate_amo;            /* SHMEM_OFI_ATOMIC_EMULATE */
    size_t bundle_size;         /* bytes a bundle holds (SHMEM_OFI_BUNDLE_SIZE), 0: off */
    int bundle_puts;            /* outside sessions too (ofi_init.c, ofi_pcntr.c) */
    const char *bundle_off_why; /* why not, for SHMEM_INFO (ofi_info) */
    size_t rma_iov_limit;       /* targets of one fi_writemsg, at most OFI_BUNDLE_IOV */
    int unreliable_ok;          /* single-transmit AMOs can be settled (ATOMIC_RAW) */
    int trigger_ok;             /* FI_TRIGGER, and writes ordered (FI_ORDER_WAW) */
    int signal_write;           /* signal sets go as 8-byte writes (SHMEM_OFI_SIGNAL_WRITE) */
    const char *signal_why;     /* why (not), for SHMEM_INFO */
    size_t key_bytes;           /* the provider's memory key size (mr_key_size) */
    unsigned char native[OFI_AMO_KINDS][OFI_AMO_OPS][OFI_AMO_TYPES];
};

/* The progress thread (ofi_progress.c) and what it and the PE's threads tell each
 * other while it runs. */
struct ofi_progress {
    int thread; /* a progress thread runs (or will, after start-up) */
    pthread_t tid;
    int fd;          /* the default CQ's wait object, or -1: the thread polls */
    int stop_fd;     /* eventfd that wakes the thread (to end it, or kicked) */
    int asleep;      /* the thread sleeps on its wait object (ofi_progress_kick) */
    int bundle_news; /* a bundle was opened outside a session (ofi_bundle_opened) */
    volatile int stop;
    int running;
    /* When a PE thread last called the transport (CLOCK_MONOTONIC, ns), while the
     * progress thread runs: it leaves the provider to a PE that drives it. */
    uint64_t pe_busy_ns;
    uint64_t pe_drove_ns; /* when a PE thread's wait last drove the network */
};

/* This PE's NIC: index of count in the node's list (ofi_init.c, node_nics), which
 * every node orders alike, and the policy that chose it. */
struct ofi_nic {
    int index, count;
    const char *policy;
    char name[OFI_NICS_MAX][64];
};

struct ofi_state {
    /* The provider's objects, opened at init and kept until fini. */
    struct fi_info *info;
    struct fi_info *info_tx; /* for contexts' endpoints: few receive buffers */
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_mr *seg_mr[SHOAL_NSEGS];
    void *seg_desc[SHOAL_NSEGS];
    /* PE pe's segments: SHOAL_NSEGS ofi_remote at remote + pe * remote_stride; the
     * host's shared table of the exchanged cards where there is one (ofi_mr.c). */
    const char *remote;
    size_t remote_stride;
    struct shoal_boot_table remote_table;
    /* pe_tag + pe is the completion context of an operation to pe that needs no
     * slot: an error entry names its target by it (ofi_progress.c); pe_tag + n_pes
     * + pe that of a read completing puts to pe (ofi_order.c), whose error is the
     * puts'. */
    char *pe_tag;
    struct fid_cntr *target_cntr; /* SHOAL_PCNTR with FI_RMA_EVENT: RMA and atomics that
                                       targeted this PE (ofi_pcntr.c); NULL otherwise */
    struct ofi_modes mode;
    struct ofi_nic nic;
    /* The contexts, which come and go while the transport runs. */
    struct ofi_ctx *dflt;      /* the default context: the target endpoint */
    struct ofi_ctx *ctxs;      /* every context (progress walks them) */
    struct ofi_ctx *idle;      /* endpoints of destroyed contexts, for the next ones */
    pthread_mutex_t ctxs_lock; /* ctxs and idle */
    struct ofi_progress prog;
};

extern struct ofi_state ofi;

static inline uint64_t ofi_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A PE thread is in the transport. Two calls within OFI_PE_BUSY_NS mean it posts
 * or polls back to back, driving the provider itself, and the progress thread
 * keeps out of its way (ofi_progress.c); one that computes or sleeps between
 * calls (a wait that has backed off) is not busy. */
#define OFI_PE_BUSY_NS 50000u
extern __thread uint64_t ofi_pe_last_ns; /* this thread's last call */
static inline void ofi_pe_busy(void)
{
    if (!ofi.prog.running)
        return;
    uint64_t now = ofi_now_ns();
    if (now - ofi_pe_last_ns < OFI_PE_BUSY_NS)
        __atomic_store_n(&ofi.prog.pe_busy_ns, now, __ATOMIC_RELAXED);
    ofi_pe_last_ns = now;
}

static inline struct ofi_ctx *ofi_ctx_of(struct shoal_ctx *ctx)
{
    return (struct ofi_ctx *)ctx->net;
}

static inline void ofi_lock(struct ofi_ctx *c)
{
    if (c->locked)
        pthread_mutex_lock(&c->lock);
}

static inline void ofi_unlock(struct ofi_ctx *c)
{
    if (c->locked)
        pthread_mutex_unlock(&c->lock);
}

/* The context of an operation, locked (its endpoint is open from creation). A
 * use keeps other threads from driving it for OFI_IDLE_NS (progress_all); only
 * lock holders write uses. */
static inline struct ofi_ctx *ofi_ctx_use(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_of(ctx);
    ofi_pe_busy();
    ofi_lock(c);
    __atomic_store_n(&c->uses, c->uses + 1, __ATOMIC_RELAXED);
    return c;
}

/* Target address and key of (seg, off) on pe. */
static inline uint64_t ofi_raddr(int seg, uint64_t off, int pe)
{
    return ((const struct ofi_remote *)(ofi.remote + (size_t)pe * ofi.remote_stride))[seg]
                   .base +
            off;
}

static inline uint64_t ofi_rkey(int seg, int pe)
{
    return ((const struct ofi_remote *)(ofi.remote + (size_t)pe * ofi.remote_stride))[seg]
            .key;
}

/* The descriptor of a local buffer inside this PE's segments, or NULL when it is
 * outside them, or the MR belongs to another endpoint (FI_MR_ENDPOINT). */
static inline int ofi_local_seg(const struct ofi_ctx *c, const void *buf, size_t len,
                                void **desc)
{
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        uintptr_t o = (uintptr_t)buf - shoal.seg[s].base;
        if (o < shoal.seg[s].size && len <= shoal.seg[s].size - o) {
            if ((ofi.mode.mr_mode & FI_MR_ENDPOINT) && c != ofi.dflt)
                return 0;
            *desc = ofi.seg_desc[s];
            return 1;
        }
    }
    return 0;
}

/* A put to pe was posted; injected: it asks for no completion. With quiet_read no
 * put is delivery-complete: the read a later settle sends to pe makes it visible
 * there (ofi_order.c), and nothing but that read completes an injected one. */
static inline void ofi_put_posted(struct ofi_ctx *c, int pe, int injected)
{
    c->writes++;
    if (ofi.mode.quiet_read) {
        c->wunsettled++;
        c->winject += (uint64_t)injected;
        if (!c->dirty_since[pe]) {
            c->dirty_since[pe] = c->epoch;
            c->dirty[c->ndirty++] = pe;
        }
    }
}

/* The operations of transport.h, by file: ofi_init.c */
int ofi_net_init(void);
void ofi_net_fini(void);
void ofi_info(void);
/* ofi_rma.c, ofi_amo.c, ofi_signal.c, ofi_order.c, ofi_ctx.c */
void ofi_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
             int pe);
void ofi_put_nbi(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                 int pe);
void ofi_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe);
void ofi_get_nbi(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe);
void ofi_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
void ofi_amo_nbi(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
void ofi_put_signal(struct shoal_ctx *ctx, const struct shoal_put_signal *ps);
void ofi_fence(struct shoal_ctx *ctx);
void ofi_quiet(struct shoal_ctx *ctx);
void ofi_pe_quiet(struct shoal_ctx *ctx, int pe);
void ofi_local_complete(struct shoal_ctx *ctx);
void ofi_session_start(struct shoal_ctx *ctx, long options);
void ofi_session_stop(struct shoal_ctx *ctx);
int ofi_ctx_create(struct shoal_ctx *ctx);
/* ofi_trigger.c */
void *ofi_trigger_open(void);
void ofi_trigger_add(void *counter, uint64_t n);
void ofi_trigger_close(void *counter);
void ofi_put_signal_triggered(struct shoal_ctx *ctx, const struct shoal_put_signal *ps,
                              void *counter, uint64_t threshold);
/* Quiet's part: waits until every one of c's triggered operations whose trigger has
 * fired is complete, and frees their records; the others wait on. */
void ofi_trigger_quiet(struct ofi_ctx *c);
/* Closes c's trigger endpoint and drops every record (context closed or parked). */
void ofi_trigger_close_ep(struct ofi_ctx *c);
void ofi_ctx_destroy(struct shoal_ctx *ctx);
/* ofi_pcntr.c */
void ofi_counters(struct shoal_ctx *ctx, struct shoal_net_counts *n);
/* The default endpoint, before it is enabled, gets the target counter where the
 * provider granted FI_RMA_EVENT (asked for with SHOAL_PCNTR only): 0 or rc. */
int ofi_pcntr_bind(struct ofi_ctx *c);

_Noreturn void ofi_fatal_rc(const char *what, int rc, const char *remedy);

/* ofi_mr.c */
int ofi_mr_segments(void);
void ofi_mr_segments_close(void);
int ofi_mr_exchange(void);
/* Lets go of ofi.remote; at close. */
void ofi_mr_remote_free(void);
/* Registers buf (on c's endpoint where MRs belong to one) under an unguessable key. */
int ofi_mr_reg(struct ofi_ctx *c, void *buf, size_t len, uint64_t access, struct fid_mr **mr);
/* Descriptor for a large local buffer outside the segments (registration cache). */
void *ofi_reg_desc(struct ofi_ctx *c, const void *buf, size_t len);
/* Releases every cached registration of c; its operations are complete. */
void ofi_reg_release(struct ofi_ctx *c);

/* ofi_shm_region.c: the /dev/shm region of an endpoint of the shm provider. */
/* The region's name ("PID:UID:N") of an endpoint not enabled yet, or -1. */
int ofi_shm_region_name(struct fid_ep *ep, char *name, size_t len);
/* 0 when no file has the name, or one that an earlier process of this pid left
 * was removed; -1 with a message ("what; remedy") in why when one is in the way. */
int ofi_shm_region_clear(const char *name, char *why, size_t len);
/* Gives an endpoint not enabled yet a region name of its own, PID:UID:R with R
 * random, written into name; 0, or -1 when the provider does not take it. */
int ofi_shm_region_rename(struct fid_ep *ep, char *name, size_t len);

/* ofi_ctx.c */
struct ofi_ctx *ofi_ctx_open(void);
/* Opens c's endpoint, CQ, counters and slots, and lists c among the contexts
 * progress drives; 0, or -1 after a warning (ofi_ctx_close then frees c). The
 * default context's failure ends the job (shmem_init). */
int ofi_ctx_enable(struct ofi_ctx *c);
void ofi_ctx_close(struct ofi_ctx *c);
/* Closes the endpoints parked by ofi_ctx_destroy; at shutdown. */
void ofi_ctx_close_idle(void);

/* ofi_progress.c */
void ofi_drain_cq(struct ofi_ctx *c);
/* Drives the other contexts' endpoints (the default one above all: it is the
 * target of every peer and of this PE's own AMOs). */
void ofi_progress_others(struct ofi_ctx *c);
/* A wait (a refused post, an operation not complete) not over yet: notes when it
 * began (*since, zero before), and ends the job once it has lasted
 * SHMEM_OFI_STALL_TIMEOUT seconds, naming pe, the PE it waits on (-1 where the
 * caller does not know one: then the PEs of c's bounce slots in flight, if any). */
int ofi_stall_expired(struct timespec *since);
__attribute__((noreturn)) void ofi_stall_fatal(struct ofi_ctx *c, const char *what, int pe);
static inline void ofi_stalled(struct ofi_ctx *c, const char *what, struct timespec *since,
                               int pe)
{
    if (SHOAL_UNLIKELY(ofi_stall_expired(since)))
        ofi_stall_fatal(c, what, pe);
}
/* Waits until cntr reaches target; pe: as for ofi_stalled. */
void ofi_wait_cntr(struct ofi_ctx *c, struct fid_cntr *cntr, uint64_t target,
                   const char *what, int pe);
void ofi_wait_flag(struct ofi_ctx *c, volatile int *done);
struct ofi_slot *ofi_slot_get(struct ofi_ctx *c);
void ofi_progress(void);
void ofi_nap(long us);
/* ofi_nap for a wait for the default context's own completions: longer, as the
 * CQ's wait object ends it. */
void ofi_nap_done(long us);
/* Whether SHMEM_OFI_PROGRESS_THREAD asks for a thread: -1 auto, 0 off, 1 on. */
int ofi_progress_thread_wanted(void);
/* An auto|on|off|1|0|yes|no|true|false setting: -1 auto (or unset), 0 off, 1 on. */
int ofi_switch(const char *v);
/* Connects c's endpoint to pes[0..n) within budget_ns, the handshakes overlapping
 * (ofi_ctx.c); reorders pes, returns how many are left to connect on first use. */
int ofi_connect_pes(struct ofi_ctx *c, int *pes, int n, uint64_t budget_ns);
int ofi_progress_thread_start(void);
void ofi_progress_thread_stop(void);
/* Wakes the progress thread where it sleeps on its wait object, which nothing a
 * PE sends would end: a bundle opened outside a session (ofi_bundle.c) then leaves
 * once the PE is away from Shoal, not at the thread's next wake-up (OFI_WAKE_MS). */
void ofi_progress_kick(void);
/* A bundle was opened outside a session: the progress thread must not sleep
 * through it. Either it sees the news before it sleeps (sleep_on_fd) or this sees
 * it asleep and kicks it: both sides store, then load, sequentially consistent. */
static inline void ofi_bundle_opened(void)
{
    if (!ofi.prog.running)
        return;
    __atomic_store_n(&ofi.prog.bundle_news, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&ofi.prog.asleep, __ATOMIC_SEQ_CST))
        ofi_progress_kick();
}

/* One poll of a wait inside the transport: drives every context, then backs off
 * as every wait of a multi-node job does (spin_polls, base/backoff.c). */
static inline void ofi_backoff(struct shoal_backoff *b)
{
    ofi_progress();
    shoal_backoff_spin(b, shoal_wait.spin_polls, ofi_nap);
}

/* One poll of a wait for c's own completions (its reads, answers, CQ entries). Only
 * the default context's traffic ends a nap early (ofi_nap), so only its waits nap
 * longer. */
static inline void ofi_backoff_done(struct ofi_ctx *c, struct shoal_backoff *b)
{
    ofi_progress();
    shoal_backoff_spin(b, shoal_wait.spin_polls, c == ofi.dflt ? ofi_nap_done : ofi_nap);
}

/* ofi_order.c */
void ofi_flush_more(struct ofi_ctx *c);
/* Waits until every put, get and AMO issued on c so far is complete. */
void ofi_wait_issued(struct ofi_ctx *c);
/* Waits until every put and non-fetching AMO of c is visible at its target. */
void ofi_wait_writes(struct ofi_ctx *c, const char *what);
/* Waits until the sources of c's puts may be reused (local completion). */
void ofi_wait_writes_local(struct ofi_ctx *c, const char *what);
/* Writes of c known to be visible at their targets. */
uint64_t ofi_writes_done(struct ofi_ctx *c);
/* c->fence_owed that waits for every earlier operation, not for targets one by one. */
#define OFI_FENCE_ALL UINT_MAX
/* What a fence of c owes a put or AMO to pe (c->fence_owed): every earlier
 * operation, or (quiet_read) the earlier puts to pe. */
void ofi_fence_wait(struct ofi_ctx *c, int pe);
/* quiet_read: waits until c's puts to pe are visible there (one read). */
void ofi_settle_pe(struct ofi_ctx *c, int pe);
void ofi_quiet_locked(struct ofi_ctx *c);

/* ofi_rma.c: issues a put; 1 when the source is reusable only once the write
 * counter catches up (direct protocol), 0 when it is free already. */
int ofi_put_locked(struct ofi_ctx *c, int seg, uint64_t off, const void *src, size_t len,
                   int pe);

/* An 8-byte put that joins no bundle and carries flags (FI_FENCE): a signal set
 * going as a write (ofi_signal.c). */
void ofi_put_word(struct ofi_ctx *c, int seg, uint64_t off, const void *src, int pe,
                  uint64_t flags);

/* Whether a signal update goes as an 8-byte write rather than an atomic
 * (ofi.mode.signal_write): a set, to another PE (this PE reads its own words with loads,
 * and must find its own set there on return, as an AMO ensures). */
static inline int ofi_signal_as_write(enum shoal_amo_op op, int pe)
{
    return ofi.mode.signal_write && op == SHOAL_AMO_WRITE && pe != shoal.my_pe;
}

/* ofi_amo.c */
void ofi_amo_table(void);
/* Sends the single-transmit AMO c holds back (c->uheld). */
void ofi_unreliable_flush(struct ofi_ctx *c);
/* flags: FI_FENCE, for a non-fetching AMO that must land after earlier writes. */
void ofi_amo_locked(struct ofi_ctx *c, const struct shoal_amo *a, int pe, int nbi,
                    uint64_t flags);

/* A post refused with -FI_EAGAIN waits for the provider to make room: it
 * progresses this context and retries, for at most SHMEM_OFI_STALL_TIMEOUT seconds
 * (ofi_stalled); anything else is fatal. */
#define OFI_POST(c, what, call)                                                              \
    do {                                                                                     \
        struct shoal_backoff ofi_b_ = { 0 };                                                 \
        struct timespec ofi_since_ = { 0, 0 };                                               \
        ssize_t ofi_rc_;                                                                     \
        double ofi_t0_ = 0;                                                                  \
        while ((ofi_rc_ = (call)) == -FI_EAGAIN) {                                           \
            if (!ofi_b_.polls && SHOAL_LOG_ON(OFI, DEBUG)) { /* this post's first refusal */ \
                ofi_t0_ = shoal_log_now();                                                   \
                SHOAL_LOG(OFI, DEBUG, "%s: the provider has no room (FI_EAGAIN); retrying",  \
                          what);                                                             \
            }                                                                                \
            ofi_drain_cq(c);                                                                 \
            ofi_progress_others(c);                                                          \
            ofi_backoff(&ofi_b_);                                                            \
            ofi_stalled(c, what, &ofi_since_, -1);                                           \
        }                                                                                    \
        /* On a connected provider the first post to a PE waits for the connection. */       \
        if (ofi_t0_ > 0)                                                                     \
            SHOAL_LOG(OFI, DEBUG, "%s: taken after %.3f ms of refusals", what,               \
                      (shoal_log_now() - ofi_t0_) * 1e3);                                    \
        if (SHOAL_UNLIKELY(ofi_rc_))                                                         \
            ofi_fatal_rc(                                                                    \
                    what, (int)ofi_rc_,                                                      \
                    "check the provider (SHMEM_OFI_PROVIDER) and FI_LOG_LEVEL=warn output"); \
    } while (0)

/* ofi_bundle.c: puts joining a bundle, signals held back by the put-with-signal
 * transform, and sending both (bundles first, one fence, then the signals). */
int ofi_bundle_put(struct ofi_ctx *c, int seg, uint64_t off, const void *src, size_t len,
                   int pe);
void ofi_bundle_flush(struct ofi_ctx *c);
/* quiet_read, at a quiet: sends the open bundle with delivery completion where it
 * is all its PE has unsettled and nothing else is held back, so that its own
 * completion tells it landed: a write and its answer, where an injected write and
 * the settling read would be three messages (ofi_order.c). Otherwise nothing. */
void ofi_bundle_flush_settled(struct ofi_ctx *c);
void ofi_pws_defer(struct ofi_ctx *c, int sig_seg, uint64_t sig_off, uint64_t signal,
                   enum shoal_amo_op op, int pe);
void ofi_deferred_flush(struct ofi_ctx *c);

/* Anything a session holds back goes out before an operation that must be
 * ordered after it, and before every wait. */
static inline void ofi_flush_deferred(struct ofi_ctx *c)
{
    if (SHOAL_UNLIKELY(c->bundle.slot != NULL || c->npws || c->uheld))
        ofi_deferred_flush(c);
}

/* ofi_session.c: the single-transmit endpoint of c, opened on first use; 0 when
 * it cannot be (after a warning; the session's AMOs stay reliable). */
int ofi_uep_open(struct ofi_ctx *c);
/* The completion context of an operation to pe: its slot's, or pe's tag. */
static inline void *ofi_op_ctx(void *context, int pe)
{
    return context ? context : ofi.pe_tag + pe;
}

/* A one-range RMA message to pe (puts and gets that need flags). The caller's iov,
 * desc and rma must outlive the post. */
static inline struct fi_msg_rma ofi_rmsg(struct iovec *iov, void **desc,
                                         struct fi_rma_iov *rma, int pe, void *context)
{
    return (struct fi_msg_rma){ .msg_iov = iov,
                                .desc = desc,
                                .iov_count = 1,
                                .addr = (fi_addr_t)pe,
                                .rma_iov = rma,
                                .rma_iov_count = 1,
                                .context = ofi_op_ctx(context, pe) };
}

/* The atomic message of every Shoal AMO: one ioc to one remote range of pe. The
 * caller's src, desc and rma must outlive the post. */
static inline struct fi_msg_atomic ofi_amsg(struct fi_ioc *src, void **desc,
                                            struct fi_rma_ioc *rma, int pe,
                                            enum fi_datatype dt, enum fi_op op, void *context)
{
    return (struct fi_msg_atomic){ .msg_iov = src,
                                   .desc = desc,
                                   .iov_count = 1,
                                   .addr = (fi_addr_t)pe,
                                   .rma_iov = rma,
                                   .rma_iov_count = 1,
                                   .datatype = dt,
                                   .op = op,
                                   .context = ofi_op_ctx(context, pe) };
}

static inline int ofi_uep(struct ofi_ctx *c)
{
    return c->uep != NULL || ofi_uep_open(c);
}
/* Ends c's session: sends what it held back, settles single-transmit AMOs. */
void ofi_session_end(struct ofi_ctx *c);
/* Waits until every single-transmit AMO c sent has been applied (or lost): one
 * atomic read per PE that got some. Quiet and fence call it. */
void ofi_unreliable_settle(struct ofi_ctx *c);
void ofi_session_close(struct ofi_ctx *c);

/* Waits the caller owes before a put or AMO to pe: a bundle to send, a fence. Held-back
 * signals may wait: nothing orders them before a later write but a fence. */
static inline void ofi_before_write(struct ofi_ctx *c, int pe)
{
    if (SHOAL_UNLIKELY(c->uheld))
        ofi_unreliable_flush(c);
    if (SHOAL_UNLIKELY(c->bundle.slot != NULL))
        ofi_bundle_flush(c);
    if (SHOAL_UNLIKELY(c->fence_owed))
        ofi_fence_wait(c, pe);
}

#endif
