/* The transport interface: how a PE reaches the memory of another PE.
 *
 * A transport is a table of operations (struct shoal_transport_ops). Two serve a
 * job: shm (transport/shm/) for the PEs on this node, whose memory is mapped here,
 * and one network transport (shoal_tp.net: ofi, or none on one node) for the others.
 * The layers above never call a backend directly: they resolve a symmetric address
 * once (shoal_resolve) and hand the result to the dispatchers below, which take the
 * same-node path inline (a load, store or CPU atomic, no call) and call the network
 * transport's table otherwise, or call the paths table transport start-up installed
 * when a wrapper took the operation over (struct shoal_path). Symmetric locations are named by
 * (segment, offset), which mean the same on every PE; the transport turns them into
 * whatever its network wants (virtual address or offset, and a key), from what it
 * exchanged at init.
 *
 * Completion, as OpenSHMEM and libfabric define it:
 *   put            returns once the source buffer may be reused (local completion);
 *   put_nbi        the source may be reused only after local_complete or quiet;
 *   get            returns with the data in dst;
 *   get_nbi        dst holds the data after quiet;
 *   amo            fetch != NULL: returns with the old value in *fetch;
 *                  fetch == NULL: non-fetching, complete at quiet;
 *   amo_nbi        fetching, *fetch written by quiet;
 *   fence          puts and AMOs to one PE issued after it land after those before;
 *   quiet          every operation of the context is complete at its target;
 *   pe_quiet       at least those of them that went to one PE are (a transport
 *                  that cannot tell PEs apart completes them all);
 *   progress       drives the provider, for peers' operations that target this PE;
 *   local_poll     the same now and then, from gets that copied same-node memory;
 *   nap            sleeps up to us microseconds, waking early when network traffic
 *                  for this PE arrives (NULL: waits just sleep).
 * Operations take world PE numbers of PEs that this transport reaches. */
#ifndef SHOAL_TRANSPORT_H
#define SHOAL_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <shmem.h>

#include "base/backoff.h"
#include "base/error.h"
#include "base/state.h"
#include "device/device.h"
#include "transport/amo.h"
#include "transport/shm/shm.h"

struct shoal_team;

/* A context's operations as shmemx_pcntr_* counts them (transport/pcntr.c), while
 * SHOAL_PCNTR is on: writes are puts, non-fetching AMOs and put-with-signal's two
 * parts, reads gets and fetching AMOs. net_*: those of them that went to the network
 * and were not complete when their call returned; settled_*: how many of those a
 * quiet has completed since. Plain counters, atomic only on a context threads share. */
struct shoal_pcntr {
    uint64_t writes, reads;
    uint64_t net_writes, net_reads;
    uint64_t settled_writes, settled_reads;
};

/* What a network transport counts of a context's resources (ops->counters), in its
 * own units: one per message it posts, so a put split into pieces counts each, and
 * the library's own messages and those of every context sharing the resources count
 * too. held: a session holds operations back or sends some uncounted, so fewer are
 * counted than were issued, or the transport counts nothing (shoal_tp_no_counters).
 * target: operations that completed with this PE as target, where the network tells
 * (0 where it cannot). */
struct shoal_net_counts {
    uint64_t writes, writes_done, reads, reads_done;
    int held;
    uint64_t target;
};

/* A communication context: its team (PE numbering), its options, and the network
 * transport's own resources, so that quiet on one context waits only for its
 * operations. Created and destroyed by api/ctx.c. */
struct shoal_ctx {
    struct shoal_team *team;
    long options;       /* SHMEM_CTX_PRIVATE / _SERIALIZED / _NOSTORE */
    long session;       /* options of the open session; 0 when none */
    void *net;          /* the network transport's resources for this context */
    unsigned destroyed; /* SHOAL_CTX_DESTROYED once shmem_ctx_destroy'd (api/ctx.c) */
    struct shoal_pcntr pcntr;
};
#define SHOAL_CTX_DESTROYED 0xdeadc7c7u

/* Reductions a transport's own collectives may be asked for. */
enum shoal_red_op {
    SHOAL_RED_AND,
    SHOAL_RED_OR,
    SHOAL_RED_XOR,
    SHOAL_RED_MAX,
    SHOAL_RED_MIN,
    SHOAL_RED_SUM,
    SHOAL_RED_PROD,
};
enum shoal_red_kind {
    SHOAL_RED_SIGNED,
    SHOAL_RED_UNSIGNED,
    SHOAL_RED_REAL,
    SHOAL_RED_COMPLEX
};

/* The members of a collective (a team or an active set; this PE is one): member i,
 * i < size, is world PE start + i * stride, or pes[i] where pes is set (an explicit
 * team, core/team.h). */
struct shoal_members {
    int start, stride, size;
    const int *pes;
};

/* Member i -> world PE, for every team, collective and member set. */
static inline int shoal_member_pe(int start, int stride, const int *pes, int i)
{
    return SHOAL_LIKELY(!pes) ? start + i * stride : pes[i];
}

/* Collectives a transport runs itself (the mpi transport: MPI's collectives), for the
 * members m.
 * Each returns 0 when it did the whole operation, nonzero when it leaves the call
 * to the library's own algorithms (counts MPI cannot express, for example); that
 * choice depends only on arguments every member passes alike. They order nothing
 * by themselves: a barrier's caller completes its puts first. */
/* How a transport's collective lets the layer above watch its wait: poll(w) on each
 * poll that finds the collective unfinished. The caller backs off there and ends the
 * job when a PE has already finalized, so the collective can never complete
 * (coll/stall.c). */
struct shoal_coll_wait {
    void (*poll)(struct shoal_coll_wait *w);
};

struct shoal_transport_coll {
    /* polled: w->poll(w) while it waits */
    int (*barrier)(const struct shoal_members *m, struct shoal_coll_wait *w);
    /* buf: root's source at the root, dest elsewhere */
    int (*broadcast)(const struct shoal_members *m, void *buf, size_t len, int root);
    int (*fcollect)(const struct shoal_members *m, void *dest, const void *src, size_t len);
    int (*collect)(const struct shoal_members *m, void *dest, const void *src, size_t len);
    /* block j of src (nelems elements of esize bytes, sst elements apart) to member j,
     * into block i of its dest (dst apart) */
    int (*alltoall)(const struct shoal_members *m, void *dest, const void *src, ptrdiff_t dst,
                    ptrdiff_t sst, size_t nelems, size_t esize);
    int (*reduce)(const struct shoal_members *m, void *dest, const void *src, size_t n,
                  size_t esize, enum shoal_red_kind kind, enum shoal_red_op op);
    /* prefix sums; exclusive: member 0's dest is zero */
    int (*scan)(const struct shoal_members *m, void *dest, const void *src, size_t n,
                size_t esize, enum shoal_red_kind kind, int exclusive);
};

/* ---- Resolved references --------------------------------------------------------- */

/* Where a symmetric object of a world PE is, resolved once by the caller and used as
 * given by every layer below: ptr is its mapping here (same node) or NULL; tp is the
 * transport that reaches it; (seg, off) names it on every PE. */
struct shoal_rref {
    char *ptr;
    const struct shoal_transport_ops *tp;
    int seg;
    int pe;
    uint64_t off;
};

/* A put-with-signal: the payload (len bytes at src) to dst, then the 64-bit signal
 * update (SHOAL_AMO_WRITE or SHOAL_AMO_ADD of signal) at sig on the same PE, which lands
 * after the payload; nbi: the source may be reused only after local_complete or quiet. */
struct shoal_put_signal {
    struct shoal_rref dst, sig;
    const void *src;
    size_t len;
    uint64_t signal;
    enum shoal_amo_op sig_op;
    int nbi;
};

struct shoal_transport_ops {
    const char *name;
    /* Collective over every PE of the job (through the bootstrap), after the
     * segments exist and shoal.node[] is known. Sets up the default context.
     * Returns 0, or nonzero after printing why. */
    int (*init)(void);
    void (*fini)(void);
    /* SHMEM_INFO: prints on stdout, one line each, the choices init made for the whole
     * job (what runs where, and why a path is off); NULL where there are none. */
    void (*info)(void);
    /* Gives ctx its own transmit resources (ctx->net); 0 or -1. */
    int (*ctx_create)(struct shoal_ctx *ctx);
    void (*ctx_destroy)(struct shoal_ctx *ctx);

    void (*put)(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                int pe);
    void (*put_nbi)(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                    int pe);
    void (*get)(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe);
    void (*get_nbi)(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len,
                    int pe);
    void (*amo)(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
    void (*amo_nbi)(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
    /* To PE ps->dst.pe, at (ps->dst.seg, ps->dst.off) and (ps->sig.seg, ps->sig.off). */
    void (*put_signal)(struct shoal_ctx *ctx, const struct shoal_put_signal *ps);

    void (*fence)(struct shoal_ctx *ctx);
    void (*quiet)(struct shoal_ctx *ctx);
    void (*pe_quiet)(struct shoal_ctx *ctx, int pe);
    /* Waits until the source buffers of this context's put_nbi may be reused. */
    void (*local_complete)(struct shoal_ctx *ctx);
    /* Session hints (SHMEM_CTX_SESSION_BATCH): operations may be coalesced until stop. */
    void (*session_start)(struct shoal_ctx *ctx, long options);
    void (*session_stop)(struct shoal_ctx *ctx);
    void (*progress)(void);
    /* Called after each get served by a same-node copy, which makes no network call,
     * for a transport whose peers' operations on this PE wait for this PE's progress
     * (MPI), so that a PE polling same-node memory with gets still serves them; it
     * makes progress now and then. NULL where none is needed: the gets stay inline. */
    void (*local_poll)(void);
    /* The device memory it can reach on other nodes: bit 1u << SHOAL_DEV_IFACE_x
     * (device/device.h) for each way the device layer may offer a device heap (a host
     * alias, device-memory registration by interface); 0: none. shmem_init refuses a
     * device heap across nodes that the job's network transport cannot reach; its
     * init may refuse still (ofi: a provider without FI_HMEM). */
    unsigned dev_ifaces;

    void (*nap)(long us);
    /* NULL: every collective runs the library's algorithms over the operations above. */
    const struct shoal_transport_coll *coll;
    /* Triggered operations, NULL where the transport has none. trigger_open gives
     * a network counter (NULL when the provider offers none); put_signal_triggered
     * posts a put-with-signal the network issues once that counter reaches
     * threshold, complete at the quiet after that. */
    void *(*trigger_open)(void);
    void (*trigger_add)(void *counter, uint64_t n);
    void (*trigger_close)(void *counter);
    void (*put_signal_triggered)(struct shoal_ctx *ctx, const struct shoal_put_signal *ps,
                                 void *counter, uint64_t threshold);
    /* Performance counters of ctx's network resources; shoal_tp_no_counters where the
     * transport keeps none (completion is then known only at quiet). */
    void (*counters)(struct shoal_ctx *ctx, struct shoal_net_counts *n);
};

/* The same-node transport (transport/shm/shm.c). */
extern const struct shoal_transport_ops shoal_transport_shm;
/* Network transports built into this library; a NULL entry where one was not built. */
extern const struct shoal_transport_ops *const shoal_net_ofi;
/* The one used when every PE is on this node: every operation reports a bug. */
extern const struct shoal_transport_ops shoal_net_none;

/* The transports' own state: the network transport in use, and the device heap as
 * the transports reach it, which mem/device_heap.c fills when it builds the heap. */
struct shoal_tp_state {
    const struct shoal_transport_ops *net; /* ofi, mpi, or none on one node */
    /* What net runs over (ofi: the libfabric provider), for SHMEM_INFO. */
    const char *net_provider;
    /* dev_peer[pe]: device pointer to PE pe's device heap (IPC), NULL when on
     * another node. */
    char **dev_peer;
    /* How the network reaches this PE's device heap, as the device layer says
     * (device/device.h: an enum shoal_dev_iface, 0 when it cannot), the backend's
     * device number for that interface, and what the network registers and names:
     * the host alias (emu) or the device heap (cuda, rocm). */
    int dev_nic_iface;
    int dev_nic_device;
    uintptr_t dev_nic_base;
    uint64_t *dev_amo_lock; /* symmetric host word: device AMOs' lock */
};
extern struct shoal_tp_state shoal_tp;

/* What the network registers for segment s: its base, or for the device heap what
 * the device layer offers (0 when none: not registered). */
static inline uintptr_t shoal_seg_nic_base(int s)
{
    return s == SHOAL_SEG_DEVICE ? shoal_tp.dev_nic_base : shoal.seg[s].base;
}

/* How a wait of this PE sleeps (base/backoff.h): in the network's nap when the job
 * spans nodes, so that traffic for this PE wakes it; NULL (a plain sleep) on one
 * node, or where the network transport has no nap. */
static inline shoal_nap_fn *shoal_net_nap(void)
{
    return shoal.multi_node ? shoal_tp.net->nap : NULL;
}

/* Starts the transports once the segments exist and the node layout is known
 * (collective): shm maps the same-node peers' segments, the network transport the
 * rest. Ends the job with the remedy when that is impossible. */
void shoal_transport_init(void);
void shoal_transport_fini(void);

/* ---- Resolving a symmetric address ------------------------------------------------ */

/* The device heap: never load/store memory (ptr NULL); tp is shm for a same-node PE
 * (the device layer's IPC mapping reaches it) and the network otherwise. Out of line
 * (transport.c), and by value so that the caller's rref never has its address taken:
 * shoal_resolve inlines small and the fast paths keep the rref in registers. */
struct shoal_rref shoal_resolve_device(uintptr_t a, int pe); /* seg -1: not in it */

/* 0 with *r filled, or -1 when addr is in no symmetric segment. */
static SHOAL_INLINE int shoal_resolve(const void *addr, int pe, struct shoal_rref *r)
{
    uintptr_t a = (uintptr_t)addr;
    int s = SHOAL_SEG_HEAP;
    uintptr_t off = a - shoal.seg[s].base;
    if (SHOAL_UNLIKELY(off >= shoal.seg[s].size)) {
        s = SHOAL_SEG_DATA;
        off = a - shoal.seg[s].base;
        if (SHOAL_UNLIKELY(off >= shoal.seg[s].size)) {
            *r = shoal_resolve_device(a, pe);
            return r->seg < 0 ? -1 : 0;
        }
    }
    char *base = shoal_shm_peer[s][pe];
    r->ptr = SHOAL_LIKELY(base != NULL) ? base + off : NULL;
    r->tp = SHOAL_LIKELY(base != NULL) ? &shoal_transport_shm : shoal_tp.net;
    r->seg = s;
    r->pe = pe;
    r->off = off;
    return 0;
}

/* [r, r + len) inside the segment: one overflow-safe comparison (off < size holds). */
static inline int shoal_rref_fits(const struct shoal_rref *r, size_t len)
{
    return SHOAL_LIKELY(len <= shoal.seg[r->seg].size - r->off);
}

/* ---- Paths ------------------------------------------------------------------------ */

/* Where this PE's resolved operations go, chosen once by shoal_transport_init and
 * installed as shoal.path. shoal_path_host (transport.c) takes the same-node copy or
 * CPU atomic when the object is mapped here and the network transport otherwise.
 * Wrappers take the table below them and call down into it only:
 *   device memory in play (transport/dev_route.c): device-heap objects and local
 *     buffers in device memory, through the device layer's copy engine;
 *   a network transport whose peers wait for this PE's progress (transport/poll.c):
 *     a same-node get drives it now and then (ops->local_poll);
 *   SHOAL_PCNTR (transport/pcntr.c): counts each operation in its context;
 *   SHOAL_LOG=api:trace (transport/trace.c): logs each operation's path.
 * shoal.wrapped says which families a wrapper took over (SHOAL_WRAP_*), so the
 * dispatchers below keep one inline test: mapped here and not wrapped. The entries
 * mean what the dispatchers of the same names mean. */
struct shoal_path {
    void (*put)(shmem_ctx_t ctx, const struct shoal_rref *r, const void *src, size_t len,
                int nbi);
    void (*get)(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r, size_t len, int nbi);
    void (*amo)(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch, int nbi);
    void (*put_signal)(shmem_ctx_t ctx, const struct shoal_put_signal *ps);
    void (*fence)(shmem_ctx_t ctx);
    void (*quiet)(shmem_ctx_t ctx);
};
extern const struct shoal_path shoal_path_host;
/* The table below the polling and counting wrappers, which the library's own copies
 * take (shoal_copy_to, shoal_copy_from): device-aware, not counted. */
extern const struct shoal_path *shoal_copy_path;
/* The wrappers: each returns its table, which calls down into inner. */
const struct shoal_path *shoal_path_dev_wrap(const struct shoal_path *inner);
const struct shoal_path *shoal_path_poll_wrap(const struct shoal_path *inner);
const struct shoal_path *shoal_path_pcntr_wrap(const struct shoal_path *inner);
const struct shoal_path *shoal_path_trace_wrap(const struct shoal_path *inner);

/* Device-layer services the API needs besides the paths (transport/dev_route.c). */
/* Completes the device copies the device paths started asynchronously (put_nbi and
 * get_nbi between device memory and a same-node PE). */
void shoal_dev_quiet(void);
/* Reads len bytes of this PE's own device-heap object (waits, tests, signal fetch). */
void shoal_dev_read_sym(void *dst, const void *sym, size_t len);
/* After a wait on device memory is satisfied: what the NIC wrote into this PE's device
 * heap before the signal becomes visible to the kernels the program launches next. */
void shoal_dev_settle_nic_writes(void);

/* What shmemx_pcntr_* report for ctx: with SHOAL_PCNTR on, the context's operations
 * (struct shoal_pcntr); off, what the network transport counts (ops->counters)
 * (transport/pcntr.c). */
struct shoal_pcntr_report {
    uint64_t issued_writes, issued_reads, completed_writes, completed_reads, target;
};
void shoal_pcntr_report(shmem_ctx_t ctx, struct shoal_pcntr_report *out);

/* ---- Dispatchers ------------------------------------------------------------------ */

/* The host paths, which shoal_path_host's entries are and the dispatchers inline. */
static inline void shoal_tp_put_host(shmem_ctx_t ctx, const struct shoal_rref *r,
                                     const void *src, size_t len, int nbi)
{
    if (SHOAL_LIKELY(r->ptr != NULL))
        shoal_shm_copy(r->ptr, src, len);
    else if (nbi)
        r->tp->put_nbi(ctx, r->seg, r->off, src, len, r->pe);
    else
        r->tp->put(ctx, r->seg, r->off, src, len, r->pe);
}

static inline void shoal_tp_get_host(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r,
                                     size_t len, int nbi)
{
    if (SHOAL_LIKELY(r->ptr != NULL))
        shoal_shm_copy(dst, r->ptr, len);
    else if (nbi)
        r->tp->get_nbi(ctx, dst, r->seg, r->off, len, r->pe);
    else
        r->tp->get(ctx, dst, r->seg, r->off, len, r->pe);
}

/* Contiguous transfers; nbi: the network may complete them at the next quiet. */
static inline void shoal_tp_put(shmem_ctx_t ctx, const struct shoal_rref *r, const void *src,
                                size_t len, int nbi)
{
    if (SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS))
        shoal.path->put(ctx, r, src, len, nbi);
    else
        shoal_tp_put_host(ctx, r, src, len, nbi);
}

static inline void shoal_tp_get(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r,
                                size_t len, int nbi)
{
    if (SHOAL_UNLIKELY(shoal.wrapped))
        shoal.path->get(ctx, dst, r, len, nbi);
    else
        shoal_tp_get_host(ctx, dst, r, len, nbi);
}

/* The network half of shoal_tp_amo_host (transport.c). */
void shoal_net_amo(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                   enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch, int nbi);

/* Whether an AMO on host object r is a CPU atomic here: only when every PE shares this
 * node (see shoal_tp_amo); otherwise the network carries it, this PE's own included. */
static inline int shoal_amo_on_cpu(const struct shoal_rref *r)
{
    return r->ptr != NULL && !shoal.multi_node;
}

/* shoal_tp_amo on host memory with a host fetch buffer. */
static inline void shoal_tp_amo_host(shmem_ctx_t ctx, const struct shoal_rref *r,
                                     enum shoal_amo_op op, enum shoal_amo_type type,
                                     uint64_t v, uint64_t cmp, void *fetch, int nbi, int mo)
{
    if (SHOAL_LIKELY(shoal_amo_on_cpu(r))) {
        if (shoal_amo_width(type) == 4) {
            uint32_t old = shoal_cpu_amo32(r->ptr, op, (uint32_t)v, (uint32_t)cmp,
                                           fetch != NULL, mo);
            if (fetch)
                memcpy(fetch, &old, 4);
        } else {
            uint64_t old = shoal_cpu_amo64(r->ptr, op, v, cmp, fetch != NULL, mo);
            if (fetch)
                memcpy(fetch, &old, 8);
        }
        return;
    }
    shoal_net_amo(ctx, r, op, type, v, cmp, fetch, nbi);
}

/* The one choice between a CPU atomic and a network AMO, for every AMO of the
 * library (the API's, signals, locks, and the collectives' words). AMOs take one
 * path for the whole job so they stay atomic with respect to each other: CPU
 * atomics on the shm mapping when every PE shares this node, the network
 * otherwise, this PE included. v and cmp are the operand and compare value, in the
 * low width bytes; fetch (a width-byte object, or NULL for a non-fetching AMO)
 * receives the old value; nbi: the network may write it at the next quiet (the API's
 * AMO routines or SHOAL_AMO_FROM_USER into it, see struct shoal_amo). mo is
 * the CPU atomic's memory order (a constant, so the inline path folds it); the
 * wrapped paths use sequentially consistent atomics, stronger than any caller asks. */
static inline void shoal_tp_amo(shmem_ctx_t ctx, const struct shoal_rref *r,
                                enum shoal_amo_op op, enum shoal_amo_type type, uint64_t v,
                                uint64_t cmp, void *fetch, int nbi, int mo)
{
    if (SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS))
        shoal.path->amo(ctx, r, op, type, v, cmp, fetch, nbi);
    else
        shoal_tp_amo_host(ctx, r, op, type, v, cmp, fetch, nbi, mo);
}

/* shoal_tp_put_signal on host memory. */
static inline void shoal_tp_put_signal_host(shmem_ctx_t ctx,
                                            const struct shoal_put_signal *ps)
{
    if (SHOAL_UNLIKELY(ps->dst.ptr == NULL)) {
        ps->dst.tp->put_signal(ctx, ps);
        return;
    }
    if (ps->len)
        shoal_shm_copy(ps->dst.ptr, ps->src, ps->len);
    shoal_shm_release_after(ps->len);
    shoal_tp_amo_host(ctx, &ps->sig, ps->sig_op, SHOAL_AMO_UINT64, ps->signal, 0, NULL, 0,
                      __ATOMIC_RELEASE);
}

/* Payload, then the 64-bit signal update, visible after the payload. */
static inline void shoal_tp_put_signal(shmem_ctx_t ctx, const struct shoal_put_signal *ps)
{
    if (SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS))
        shoal.path->put_signal(ctx, ps);
    else
        shoal_tp_put_signal_host(ctx, ps);
}

/* Ordering and completion. Same-node RMA completes inside each call, so for it fence
 * and quiet only order this thread's stores, plain or non-temporal; the network
 * transport then orders or completes the context's own operations. */
static inline void shoal_tp_fence(shmem_ctx_t ctx)
{
    if (SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS)) {
        shoal.path->fence(ctx);
        return;
    }
    shoal_shm_fence();
    shoal_tp.net->fence(ctx);
}

/* Threads registered with shmemx_thread_register (api/thread.c): each issues its
 * default-context operations on a context of its own, shoal_thread_ctx (NULL in
 * other threads), which a quiet on the default context completes too
 * (transport/threads.c). shoal_threads_registered: how many there are. */
extern __thread struct shoal_ctx *shoal_thread_ctx __attribute__((tls_model("initial-exec")));
extern int shoal_threads_registered;
/* Adds ctx, unless max are registered already (-1). */
int shoal_threads_add(struct shoal_ctx *ctx, int max);
void shoal_threads_remove(struct shoal_ctx *ctx);
/* Completes every registered thread's operations: all (pe < 0), or those to pe. */
void shoal_threads_quiet(int pe);

static inline void shoal_tp_quiet(shmem_ctx_t ctx)
{
    if (SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS))
        shoal.path->quiet(ctx);
    else {
        shoal_shm_fence();
        shoal_tp.net->quiet(ctx);
    }
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_threads_registered, __ATOMIC_RELAXED)) &&
        ctx == SHMEM_CTX_DEFAULT)
        shoal_threads_quiet(-1);
}

/* Completes what ctx issued to world PE pe: its stores to a same-node PE are
 * ordered here, the network's operations to pe completed by the transport. Wrapped
 * paths complete everything. */
static inline void shoal_tp_pe_quiet(shmem_ctx_t ctx, int pe)
{
    if (SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS)) {
        shoal_tp_quiet(ctx);
        return;
    }
    shoal_shm_fence();
    shoal_tp.net->pe_quiet(ctx, pe);
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_threads_registered, __ATOMIC_RELAXED)) &&
        ctx == SHMEM_CTX_DEFAULT)
        shoal_threads_quiet(pe);
}

/* ---- The network transport itself ------------------------------------------------ */

/* Its name, for messages and SHMEM_INFO. */
static inline const char *shoal_tp_name(void)
{
    return shoal_tp.net->name;
}
/* SHMEM_INFO: the choices its init made for the whole job. */
static inline void shoal_tp_info(void)
{
    shoal_tp.net->info();
}
/* Drives it, for peers' operations that target this PE. */
static inline void shoal_tp_progress(void)
{
    shoal_tp.net->progress();
}
/* After a get served by a same-node copy, where the network has local_poll. */
static inline void shoal_tp_local_poll(void)
{
    shoal_tp.net->local_poll();
}
/* Its own collectives, or NULL: the library's algorithms run every collective. */
static inline const struct shoal_transport_coll *shoal_tp_coll(void)
{
    return shoal_tp.net->coll;
}

/* ---- Contexts, sessions, local completion, triggers ------------------------------- */

/* Same-node operations complete in their call and need no resources: these are the
 * network transport's alone. */
static inline int shoal_tp_ctx_create(struct shoal_ctx *ctx)
{
    return shoal_tp.net->ctx_create(ctx);
}
static inline void shoal_tp_ctx_destroy(struct shoal_ctx *ctx)
{
    shoal_tp.net->ctx_destroy(ctx);
}
static inline void shoal_tp_session_start(struct shoal_ctx *ctx, long options)
{
    shoal_tp.net->session_start(ctx, options);
}
static inline void shoal_tp_session_stop(struct shoal_ctx *ctx)
{
    shoal_tp.net->session_stop(ctx);
}
/* Same-node puts have copied their source before returning. */
static inline void shoal_tp_local_complete(struct shoal_ctx *ctx)
{
    shoal_tp.net->local_complete(ctx);
}
/* A network counter for a trigger, or NULL where the network has none. */
static inline void *shoal_tp_trigger_open(void)
{
    return shoal_tp.net->trigger_open();
}
static inline void shoal_tp_trigger_add(void *counter, uint64_t n)
{
    shoal_tp.net->trigger_add(counter, n);
}
static inline void shoal_tp_trigger_close(void *counter)
{
    shoal_tp.net->trigger_close(counter);
}
static inline void shoal_tp_put_signal_triggered(shmem_ctx_t ctx,
                                                 const struct shoal_put_signal *ps,
                                                 void *counter, uint64_t threshold)
{
    shoal_tp.net->put_signal_triggered(ctx, ps, counter, threshold);
}

/* "Not supported" entries that backends put in their tables instead of NULL
 * (transport/stubs.c): no trigger counter, so triggered operations wait in the API;
 * no counters (all read 0); nothing to print at SHMEM_INFO. Reaching
 * shoal_tp_no_put_signal_triggered is a bug (only a counter the transport opened
 * leads there). */
void *shoal_tp_no_trigger_open(void);
void shoal_tp_no_trigger_add(void *counter, uint64_t n);
void shoal_tp_no_trigger_close(void *counter);
void shoal_tp_no_put_signal_triggered(struct shoal_ctx *ctx,
                                      const struct shoal_put_signal *ps, void *counter,
                                      uint64_t threshold);
void shoal_tp_no_counters(struct shoal_ctx *ctx, struct shoal_net_counts *n);
void shoal_tp_no_info(void);
/* The entries a run-time module may leave NULL, each with the "not supported" entry
 * the loader puts there (transport/module.c): X(entry, stub). */
#define SHOAL_TP_OPTIONAL(X)                                                                 \
    X(info, shoal_tp_no_info)                                                                \
    X(trigger_open, shoal_tp_no_trigger_open)                                                \
    X(trigger_add, shoal_tp_no_trigger_add)                                                  \
    X(trigger_close, shoal_tp_no_trigger_close)                                              \
    X(put_signal_triggered, shoal_tp_no_put_signal_triggered)                                \
    X(counters, shoal_tp_no_counters)
/* Entries of a table that a path never takes there (shm's data entries: a mapped
 * object is copied inline; none's: nothing is off the node): they report the bug. */
void shoal_tp_no_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src,
                     size_t len, int pe);
void shoal_tp_no_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len,
                     int pe);
void shoal_tp_no_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
void shoal_tp_no_put_signal(struct shoal_ctx *ctx, const struct shoal_put_signal *ps);
/* Contexts, sessions and local completion with nothing to do. */
int shoal_tp_no_ctx_create(struct shoal_ctx *ctx);
void shoal_tp_no_ctx_op(struct shoal_ctx *ctx);
void shoal_tp_no_pe_quiet(struct shoal_ctx *ctx, int pe);
void shoal_tp_no_session_start(struct shoal_ctx *ctx, long options);
void shoal_tp_no_progress(void);
/* Every entry of a table whose transport carries no operation (shm, whose objects the
 * paths copy inline; none, for a one-node job): it names itself, starts and stops. */
#define SHOAL_TP_NO_OPERATIONS                                                               \
    .info = shoal_tp_no_info, .ctx_create = shoal_tp_no_ctx_create,                          \
    .ctx_destroy = shoal_tp_no_ctx_op, .put = shoal_tp_no_put, .put_nbi = shoal_tp_no_put,   \
    .get = shoal_tp_no_get, .get_nbi = shoal_tp_no_get, .amo = shoal_tp_no_amo,              \
    .amo_nbi = shoal_tp_no_amo, .put_signal = shoal_tp_no_put_signal,                        \
    .fence = shoal_tp_no_ctx_op, .quiet = shoal_tp_no_ctx_op,                                \
    .pe_quiet = shoal_tp_no_pe_quiet, .local_complete = shoal_tp_no_ctx_op,                  \
    .session_start = shoal_tp_no_session_start, .session_stop = shoal_tp_no_ctx_op,          \
    .progress = shoal_tp_no_progress, .trigger_open = shoal_tp_no_trigger_open,              \
    .trigger_add = shoal_tp_no_trigger_add, .trigger_close = shoal_tp_no_trigger_close,      \
    .put_signal_triggered = shoal_tp_no_put_signal_triggered,                                \
    .counters = shoal_tp_no_counters

/* ---- Library-internal words and copies (barriers, collectives, team agreement) --- */

/* On world PE pe, on the default context, whichever way that PE is reached; the
 * symmetric addresses are the library's own. */
uint64_t shoal_word_fetch_op(enum shoal_amo_op op, uint64_t *word, uint64_t v, int pe);
uint64_t shoal_word_read(const uint64_t *word, int pe);
/* Non-fetching: returns without waiting for the update to land (barrier arrivals,
 * whose target waits for them anyway). */
void shoal_word_add(uint64_t *word, uint64_t v, int pe);
/* Stores v once the payload put to pe before it (payload bytes; 0 when there is
 * none, so nothing to wait for) is visible there. */
void shoal_word_store(uint64_t *word, uint64_t v, int pe, size_t payload);
/* A message to a counter word at pe that only this PE updates, and always the same
 * way: the len bytes at src go to dest_sym at pe, then the word becomes count (its
 * previous value plus one) once they are visible there. Same node: a copy and a
 * release store. Network: one put-with-signal adding 1 (one non-fetching add when
 * len is 0), with no fence and no wait; the source is free on return. */
void shoal_word_signal(int pe, void *dest_sym, const void *src, size_t len, uint64_t *word,
                       uint64_t count);
/* A message to a word at pe that has one writer at a time and is reset by its owner
 * before the next: the len bytes at src go to dst (host memory at pe, resolved;
 * unused when len is 0), then the word becomes v once they are visible there. Same
 * node: a copy and a release store. Network: one put-with-signal setting the word (a
 * non-fetching write when len is 0), with no wait; the source is free on return
 * unless nbi, when it is the transport's until the next local completion. Returns 1
 * when it went to the network, else 0. */
int shoal_word_put_set(int pe, const struct shoal_rref *dst, const void *src, size_t len,
                       uint64_t *word, uint64_t v, int nbi);
/* Blocking copies for the collectives. */
void shoal_copy_to(int pe, void *dest_sym, const void *src, size_t len);
void shoal_copy_from(int pe, void *dst, const void *src_sym, size_t len);

#endif
