/* The MPI-3 RMA transport (the OSHMPI design), built as libshoal-mpi.so and loaded
 * by libshoal only when SHOAL_TRANSPORT selects it. It reads the library's state
 * through the module host table (transport/module.h) and knows no other transport.
 *
 * Each symmetric segment (heap, static data) is an MPI window made with
 * MPI_Win_create over the existing memory, opened with MPI_Win_lock_all for the
 * whole job. Windows come in sets, one window per segment:
 *   set 0         the default context's puts and gets, and every AMO of every
 *                 context, so that all AMOs share one window (one atomicity domain);
 *   sets 1..K     puts and gets of created contexts (SHOAL_MPI_CONTEXT_WINDOWS = K),
 *                 shared round robin, so that one context's quiet flushes windows
 *                 the others' puts do not use.
 * A set remembers, per window, the PEs with operations not yet completed, so that
 * fence and quiet flush just those (and cost nothing when there are none). */
#ifndef SHOAL_MPI_TR_H
#define SHOAL_MPI_TR_H

#include <mpi.h>
#include <pthread.h>

#include "transport/module.h"

struct mpi_set {
    MPI_Win win[SHOAL_NSEGS];
    unsigned dirty;                 /* bit s: targets[s] may have bits set (atomic) */
    uint64_t *targets[SHOAL_NSEGS]; /* bit pe: operations to pe on win[s] to complete */
};

/* Copies of data that MPI may read after the call returns: operands of
 * non-fetching and non-blocking AMOs, and sources of small put_nbi (which OpenSHMEM
 * programs often reuse at once, as other transports inject such puts). The arena is
 * reused from the start after a flush_local of every window it may feed. */
#define MPI_ARENA_BYTES (16 * 1024)
#define MPI_BOUNCE_MAX 256

struct mpi_ctx {
    struct mpi_set *rma; /* windows of this context's puts and gets */
    unsigned amo_dirty;  /* bit s: this context left AMOs on set 0's window s */
    unsigned msg_any;    /* msg_pes may have bits set (atomic) */
    uint64_t *msg_pes;   /* bit pe: one-way AMO messages to pe not yet acknowledged */
    /* Replies of fetching _nbi AMOs sent as messages, which quiet waits for, and the
     * PE each comes from; under lock where mt.locked. */
    MPI_Request *fetch_req;
    int *fetch_pe;
    int nfetch, fetch_cap;
    pthread_mutex_t lock; /* the arena, with SHMEM_THREAD_MULTIPLE */
    size_t used;          /* arena bytes handed out since it was last reset */
    _Alignas(16) unsigned char arena[MPI_ARENA_BYTES];
};

/* Shoal's own communicator over every process of the job (mpi_world.c): from an MPI
 * session of its own where MPI has sessions (MPI 4), else a duplicate of
 * MPI_COMM_WORLD. */
struct mpi_world {
#if MPI_VERSION >= 4
    MPI_Session session;
#endif
    MPI_Comm comm; /* MPI_COMM_NULL until opened and once closed */
    int own_mpi;   /* Shoal chose the thread level: a session, or MPI_Init_thread here */
};
#define MPI_WORLD_CLOSED                                                                     \
    {                                                                                        \
        .comm = MPI_COMM_NULL                                                                \
    }
enum { MPI_WORLD_FINALIZED = -1, MPI_WORLD_FAILED = -2 };
/* Opens w at thread level want, *have the level MPI provides; tag names the
 * communicator among Shoal's. 0, MPI_WORLD_FINALIZED when the application has already
 * called MPI_Finalize, or MPI_WORLD_FAILED when MPI cannot start. */
int mpi_world_open(struct mpi_world *w, int want, int *have, const char *tag);
void mpi_world_close(struct mpi_world *w);
/* The application's MPI_Finalize took w's communicator with it (MPI 3 only). */
int mpi_world_lost(const struct mpi_world *w);
/* What w is, for the log. */
const char *mpi_world_kind(const struct mpi_world *w);

struct mpi_tr {
    const struct shoal_module_host *host;
    const struct shoal_state *st;
    const struct shoal_tp_state *tp;
    struct mpi_world world;
    MPI_Comm comm; /* every PE, rank = PE number */
    int locked;    /* operand slots need the lock */
    int have;      /* the thread level MPI provides */
    int nwords;    /* 64-bit words of a targets bitmap */
    int nsets;
    struct mpi_set *sets; /* sets[0]: default context and all AMOs */
    unsigned next_set;
    /* AMOs as Shoal's own messages (mpi_amo.c), when msg is set: requests on amo_req,
     * which the progress thread and this PE's polls serve under serve_lock (so one
     * PE's requests are applied in the order sent), replies on amo_rep. */
    int msg;
    MPI_Comm amo_req, amo_rep;
    int tag_ub;
    unsigned next_tag;
    pthread_mutex_t serve_lock;
    pthread_t thread;
    int thread_on, stop;
    /* Threads of this PE in a transport call that polls or queues MPI work (puts,
     * gets, AMOs, quiet, barriers, waits), which serve requests themselves: the AMO
     * thread stays out of MPI meanwhile, so that it never takes MPI's locks from
     * under them, nor a CPU they share. Not the blocking collectives: the thread
     * serves while they wait inside MPI. */
    unsigned inside;
    const char *amo_why;      /* why AMOs use this mechanism, for SHMEM_INFO */
    unsigned poll_left;       /* fetching AMOs and quiets until progress (mpi_rma.c) */
    unsigned local_poll_left; /* same-node gets until progress (mpi_rma.c) */
    struct mpi_ctx dflt;
};

extern struct mpi_tr mt;

#define MT_FATAL(...) mt.host->fatal(__VA_ARGS__)
/* SHOAL_LOG=mpi:LEVEL through the host's log. */
#define MT_LOG(level, ...)                                                                   \
    do {                                                                                     \
        if (SHOAL_UNLIKELY(*mt.host->log_mask &                                              \
                           SHOAL_LOG_BIT(SHOAL_LOG_MPI, SHOAL_LOG_##level)))                 \
            mt.host->log(SHOAL_LOG_MPI, __VA_ARGS__);                                        \
    } while (0)

/* A relaxed load and store, no locked instruction, unless threads of the program
 * may enter at once; the AMO thread only reads it. Nothing without that thread
 * (mt.msg changes only at start-up and finalize, outside every transport call). */
static inline void mpi_enter(void)
{
    if (!mt.msg)
        return;
    if (mt.locked)
        __atomic_fetch_add(&mt.inside, 1, __ATOMIC_RELAXED);
    else
        __atomic_store_n(&mt.inside, __atomic_load_n(&mt.inside, __ATOMIC_RELAXED) + 1,
                         __ATOMIC_RELAXED);
}

static inline void mpi_leave(void)
{
    if (!mt.msg)
        return;
    if (mt.locked)
        __atomic_fetch_sub(&mt.inside, 1, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&mt.inside, __atomic_load_n(&mt.inside, __ATOMIC_RELAXED) - 1,
                         __ATOMIC_RELEASE);
}

static inline struct mpi_ctx *mpi_ctx_of(struct shoal_ctx *ctx)
{
    return (struct mpi_ctx *)ctx->net;
}

static inline void mpi_mark_bits(unsigned *bits, unsigned bit)
{
    if (!(__atomic_load_n(bits, __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(bits, bit, __ATOMIC_RELAXED);
}

/* Notes an operation to pe on set's window seg that a quiet must complete; called
 * after issuing it, so a concurrent quiet that clears the note has flushed it. */
static inline void mpi_mark(struct mpi_set *set, int seg, int pe)
{
    uint64_t *w = &set->targets[seg][pe >> 6], bit = 1ull << (pe & 63);
    if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
    mpi_mark_bits(&set->dirty, 1u << seg);
}

/* Completes the noted operations on set's windows in mask: at their targets, or
 * (local) only at this PE, keeping the notes for a later quiet. */
void mpi_flush_set(struct mpi_set *set, unsigned mask, int local);

/* Operations (mpi_rma.c). */
void mpi_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
             int pe);
void mpi_put_nbi(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                 int pe);
void mpi_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe);
void mpi_get_nbi(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe);
void mpi_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
void mpi_amo_nbi(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
void mpi_put_signal(struct shoal_ctx *ctx, const struct shoal_put_signal *ps);
void mpi_quiet(struct shoal_ctx *ctx);
void mpi_pe_quiet(struct shoal_ctx *ctx, int pe);
void mpi_local_complete(struct shoal_ctx *ctx);
void mpi_session_start(struct shoal_ctx *ctx, long options);
void mpi_session_stop(struct shoal_ctx *ctx);
void mpi_progress(void);
void mpi_local_poll(void);

/* AMOs as messages (mpi_amo.c): msg_open after the windows, msg_close before them
 * (every PE's one-way AMOs complete first); msg_amo for any AMO (nbi: a fetching one
 * completes at quiet); msg_quiet acknowledges c's one-way AMOs and completes its
 * fetching _nbi ones, msg_pe_quiet those to pe; msg_serve applies the requests that
 * have arrived. */
int mpi_msg_open(void);
void mpi_msg_close(void);
void mpi_msg_amo(struct mpi_ctx *c, const struct shoal_amo *a, int pe, int nbi);
void mpi_msg_quiet(struct mpi_ctx *c);
void mpi_msg_pe_quiet(struct mpi_ctx *c, int pe);
int mpi_msg_serve(void);

extern const struct shoal_transport_ops mpi_ops;

/* MPI's thread level for a SHMEM_THREAD_* level, and its name. */
int mpi_level(int shmem_level);
const char *mpi_level_name(int mpi_level);
/* Settings MPI_Init needs for SHMEM's one-sided use, set unless the user chose. */
void mpi_env_defaults(void);

/* Collectives (mpi_coll.c); fini frees the cached communicators. */
extern const struct shoal_transport_coll mpi_coll;
void mpi_coll_fini(void);

#endif
