/* shmemx.h: Shoal's extensions to OpenSHMEM, the ones the HPE Cray OpenSHMEMX papers
 * describe (docs/extensions.md explains each). Routines carry the shmemx_ prefix, as
 * the specification requires of non-standard interfaces; the session options keep
 * the names that code written for Cray OpenSHMEMX uses. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* ---- Local completion ------------------------------------------------------------
 * Returns once the source buffers of every put_nbi (and put_signal_nbi) issued so far
 * on the context may be reused; unlike quiet it does not wait for delivery. */
void shmemx_local_complete(void);
void shmemx_ctx_local_complete(shmem_ctx_t ctx);

/* ---- Sessions --------------------------------------------------------------------
 * Between start and stop, the context's operations of the kinds named may be
 * bundled (coalesced) by the transport. Options are hints: a transport may honour
 * fewer of them. */
#define SHMEM_SESSION_BUNDLE      (1L << 0)  /* coalesce operations into fewer messages */
#define SHMEM_SESSION_OP_PUT      (1L << 1)  /* the session carries puts */
#define SHMEM_SESSION_OP_PWS      (1L << 2)  /* ... puts with signal */
#define SHMEM_SESSION_OP_AMO      (1L << 3)  /* ... non-fetching AMOs */
#define SHMEM_SESSION_UNRELIABLE  (1L << 4)  /* with OP_AMO: AMOs may be sent once, unacknowledged */
void shmemx_ctx_session_start(shmem_ctx_t ctx, long options);
void shmemx_ctx_session_stop(shmem_ctx_t ctx);

/* ---- Signals ---------------------------------------------------------------------
 * Sets a remote signal word, atomically with respect to other signal operations on
 * it (the 1.6 shmem_signal_set, under the name Cray OpenSHMEMX uses). */
void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
/* The adding form, under the name Sandia OpenSHMEM uses (1.6: shmem_signal_add). */
void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);

/* ---- Performance counters (Sandia OpenSHMEM's) --------------------------------------
 * How many writes (puts, non-fetching AMOs, put-with-signal's two parts) and reads
 * (gets, fetching AMOs) a context has issued and how many of them completed, and how
 * many operations completed with this PE as target. Every operation is counted when
 * SHOAL_PCNTR=1; otherwise the counts are the network transport's own (docs/
 * extensions.md). Counts only grow. pending_put and pending_get are the issued counts
 * (SOS's names), not issued minus completed. */
typedef struct {
    uint64_t pending_put;   /* = shmemx_pcntr_get_issued_write */
    uint64_t pending_get;   /* = shmemx_pcntr_get_issued_read */
    uint64_t completed_put; /* = shmemx_pcntr_get_completed_write */
    uint64_t completed_get; /* = shmemx_pcntr_get_completed_read */
    uint64_t target;        /* = shmemx_pcntr_get_completed_target */
} shmemx_pcntr_t;
void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void shmemx_pcntr_get_completed_target(uint64_t *cntr_value);
void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr);
void pshmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void pshmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void pshmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value);
void pshmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value);
void pshmemx_pcntr_get_completed_target(uint64_t *cntr_value);
void pshmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr);

/* ---- Allocation hints --------------------------------------------------------------
 * With shmem_malloc_with_hints: skip the barrier that ends the allocation (Sandia
 * OpenSHMEM's hint). Every PE still makes the same call; the caller must order its
 * first remote access to the block after the target PE's allocation (e.g. by a later
 * barrier or a signal). */
#define SHMEMX_MALLOC_NO_BARRIER (1L << 2)

/* ---- Triggered (deferred) put-with-signal ----------------------------------------
 * A trigger is a counter this PE increments. A put-with-signal posted against it
 * (source, destination and signal fixed now) is issued once the trigger reaches
 * the threshold: by the NIC where the provider offers triggered operations
 * (FI_TRIGGER), otherwise by the library inside shmemx_trigger_increment. The
 * source must stay unchanged until then. quiet on the context completes the ones
 * that fired; calling it while one still waits for its trigger is an error. */
typedef struct shoal_trigger *shmemx_trigger_t;
int shmemx_trigger_create(shmemx_trigger_t *trigger);
void shmemx_trigger_increment(shmemx_trigger_t trigger, uint64_t n);
uint64_t shmemx_trigger_read(shmemx_trigger_t trigger);
void shmemx_trigger_destroy(shmemx_trigger_t trigger);
void shmemx_putmem_signal_triggered(void *dest, const void *source, size_t nbytes,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    shmemx_trigger_t trigger, uint64_t threshold);
void shmemx_ctx_putmem_signal_triggered(shmem_ctx_t ctx, void *dest, const void *source,
                                        size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                        int sig_op, int pe, shmemx_trigger_t trigger,
                                        uint64_t threshold);

/* ---- Variable-size all-to-all (Cray OpenSHMEMX's) ------------------------------------
 * Entry i of each array (PE_size or team-size entries, all symmetric, as are target
 * and source) is about member i. Member i's block for this PE is s_sizes[me] bytes at
 * its s_offsets[me]; alltoallv puts it at t_offsets[i] of target and its length in
 * t_sizes[i]; _packed lays the blocks one after another in member order (at most
 * target_len bytes) and stores their total in *t_size. SHMEM_ALLTOALLV_TSIZE_CHK=
 * abort or trunc: t_sizes on entry holds the most bytes taken from each member, and a
 * longer block ends the job or is cut. pSync: SHMEM_ALLTOALL_SYNC_SIZE longs. The team
 * forms take the team first, like shmem_alltoallmem, and return 0, or nonzero for an
 * invalid team or one this PE is not in. */
void shmemx_alltoallv(void *target, size_t *t_offsets, size_t *t_sizes, const void *source,
                      size_t *s_offsets, size_t *s_sizes, int PE_start, int logPE_stride,
                      int PE_size, long *pSync);
void shmemx_alltoallv_packed(void *target, size_t target_len, size_t *t_size,
                             const void *source, size_t *s_offsets, size_t *s_sizes,
                             int PE_start, int logPE_stride, int PE_size, long *pSync);
int shmemx_team_alltoallv(shmem_team_t team, void *target, size_t *t_offsets,
                          size_t *t_sizes, const void *source, size_t *s_offsets,
                          size_t *s_sizes);
int shmemx_team_alltoallv_packed(shmem_team_t team, void *target, size_t target_len,
                                 size_t *t_size, const void *source, size_t *s_offsets,
                                 size_t *s_sizes);
void pshmemx_alltoallv(void *target, size_t *t_offsets, size_t *t_sizes, const void *source,
                       size_t *s_offsets, size_t *s_sizes, int PE_start, int logPE_stride,
                       int PE_size, long *pSync);
void pshmemx_alltoallv_packed(void *target, size_t target_len, size_t *t_size,
                              const void *source, size_t *s_offsets, size_t *s_sizes,
                              int PE_start, int logPE_stride, int PE_size, long *pSync);
int pshmemx_team_alltoallv(shmem_team_t team, void *target, size_t *t_offsets,
                           size_t *t_sizes, const void *source, size_t *s_offsets,
                           size_t *s_sizes);
int pshmemx_team_alltoallv_packed(shmem_team_t team, void *target, size_t target_len,
                                  size_t *t_size, const void *source, size_t *s_offsets,
                                  size_t *s_sizes);

/* ---- Memory spaces and device awareness (GPU-aware OpenSHMEM, docs/gpu.md) --------
 * A space names a symmetric heap: SHMEM_SPACE_DEFAULT the usual one, SHMEM_SPACE_DEVICE
 * the device heap (SHMEM_SYMMETRIC_SIZE_DEVICE bytes of GPU memory per PE). The
 * routines are collective and behave like shmem_malloc/calloc/realloc/align/free;
 * shmem_free and shmem_realloc also take device-space pointers. Every RMA, AMO,
 * signal, wait and collective accepts device-space symmetric objects, from any
 * context. shmem_query_device_awareness: nonzero when SHMEM_ENABLE_DEVICE_AWARENESS
 * lets local buffers be device memory the program allocated itself. */
typedef int shmem_space_t;
#define SHMEM_SPACE_DEFAULT ((shmem_space_t)0)
#define SHMEM_SPACE_DEVICE  ((shmem_space_t)1)
void *shmem_space_malloc(shmem_space_t space, size_t size);
void *shmem_space_alloc(shmem_space_t space, size_t count, size_t size);
void *shmem_space_realloc(shmem_space_t space, void *ptr, size_t size);
void *shmem_space_align(shmem_space_t space, size_t alignment, size_t size);
void shmem_space_free(shmem_space_t space, void *ptr);
int shmem_query_device_awareness(void);
/* Device data this PE has staged through host memory since shmem_init (operations and
 * bytes; either pointer may be NULL): collectives and network transfers of device
 * buffers that the device and the network cannot do directly. */
void shmemx_device_host_bounces(uint64_t *ops, uint64_t *bytes);

/* Their profiling twins (pshmem.h holds those of shmem.h). */
void *pshmem_space_malloc(shmem_space_t space, size_t size);
void *pshmem_space_alloc(shmem_space_t space, size_t count, size_t size);
void *pshmem_space_realloc(shmem_space_t space, void *ptr, size_t size);
void *pshmem_space_align(shmem_space_t space, size_t alignment, size_t size);
void pshmem_space_free(shmem_space_t space, void *ptr);
int pshmem_query_device_awareness(void);
void pshmemx_device_host_bounces(uint64_t *ops, uint64_t *bytes);

/* ---- Stream-ordered operations (docs/gpu.md) ----------------------------------------
 * Each is queued on the program's GPU stream and runs after the work queued on that
 * stream before it and before the work queued after it; the calling thread does not
 * wait. shmemx_stream_t is the backend's stream: a cudaStream_t (CUstream), a
 * hipStream_t, or an emu stream (SHOAL_DEVICE=emu); NULL is the default stream.
 * Symmetric objects and local buffers may be in either memory space (device local
 * buffers need SHMEM_ENABLE_DEVICE_AWARENESS, as for every routine). A collective
 * on a stream must be called by every member of the team in the same order as its
 * other collectives on that team, host or stream. Needs a device backend. */
typedef void *shmemx_stream_t;
void shmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                             shmemx_stream_t stream);
void shmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                             shmemx_stream_t stream);
void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    shmemx_stream_t stream);
void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                        shmemx_stream_t stream);
void shmemx_quiet_on_stream(shmemx_stream_t stream);
void shmemx_barrier_all_on_stream(shmemx_stream_t stream);
int shmemx_team_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream);
int shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                  size_t nelems, int PE_root, shmemx_stream_t stream);
int shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                 size_t nelems, shmemx_stream_t stream);
#define SHOAL_STREAM_SUM_REDUCE(TYPE, N)                                                  \
    int shmemx_##N##_sum_reduce_on_stream(shmem_team_t team, TYPE *dest,                  \
                                          const TYPE *source, size_t nreduce,             \
                                          shmemx_stream_t stream);                        \
    int pshmemx_##N##_sum_reduce_on_stream(shmem_team_t team, TYPE *dest,                 \
                                           const TYPE *source, size_t nreduce,            \
                                           shmemx_stream_t stream);
SHMEM_REDUCE_ARITH_TYPES(SHOAL_STREAM_SUM_REDUCE)
#undef SHOAL_STREAM_SUM_REDUCE
void pshmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                              shmemx_stream_t stream);
void pshmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                              shmemx_stream_t stream);
void pshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                     shmemx_stream_t stream);
void pshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                         shmemx_stream_t stream);
void pshmemx_quiet_on_stream(shmemx_stream_t stream);
void pshmemx_barrier_all_on_stream(shmemx_stream_t stream);
int pshmemx_team_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream);
int pshmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                   size_t nelems, int PE_root, shmemx_stream_t stream);
int pshmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                  size_t nelems, shmemx_stream_t stream);

/* ---- Cray OpenSHMEMX routines that no standard routine provides -------------------
 * 16-bit AMOs on a short (atomic with respect to each other; each is a compare-and-
 * swap loop on the 32-bit word holding the short), and the legacy grid splits: the
 * first xrange * yrange (* zrange) PEs of the parent form a grid, x fastest, each PE
 * joins the team of its line along each axis, ranked by its place on that axis, and
 * PEs past the grid get SHMEM_TEAM_INVALID. A 2-D grid that covers the parent is
 * shmem_team_split_2d's (yrange then only needs to be large enough). */
void shmemx_short_add(short *target, short value, int pe);
void shmemx_short_inc(short *target, int pe);
short shmemx_short_fadd(short *target, short value, int pe);
short shmemx_short_finc(short *target, int pe);
short shmemx_short_swap(short *target, short value, int pe);
short shmemx_short_cswap(short *target, short cond, short value, int pe);
void shmemx_team_split_2d(shmem_team_t parent, int xrange, int yrange, shmem_team_t *xteam,
                          shmem_team_t *yteam);
void shmemx_team_split_3d(shmem_team_t parent, int xrange, int yrange, int zrange,
                          shmem_team_t *xteam, shmem_team_t *yteam, shmem_team_t *zteam);
/* Thread-hot routines: a registered thread of a SHMEM_THREAD_MULTIPLE program issues
 * its default-context operations on a context of its own, which thread_quiet and
 * thread_fence complete and order alone; shmem_quiet still completes every thread's.
 * Each register is matched by an unregister in the same thread, before it ends. */
void shmemx_thread_register(void);
void shmemx_thread_unregister(void);
void shmemx_thread_quiet(void);
void shmemx_thread_fence(void);
void pshmemx_thread_register(void);
void pshmemx_thread_unregister(void);
void pshmemx_thread_quiet(void);
void pshmemx_thread_fence(void);
void pshmemx_short_add(short *target, short value, int pe);
void pshmemx_short_inc(short *target, int pe);
short pshmemx_short_fadd(short *target, short value, int pe);
short pshmemx_short_finc(short *target, int pe);
short pshmemx_short_swap(short *target, short value, int pe);
short pshmemx_short_cswap(short *target, short cond, short value, int pe);
void shmemx_team_split(shmem_team_t parent, int color, int key, shmem_team_t *newteam);
void pshmemx_team_split(shmem_team_t parent, int color, int key, shmem_team_t *newteam);
void pshmemx_team_split_2d(shmem_team_t parent, int xrange, int yrange, shmem_team_t *xteam,
                           shmem_team_t *yteam);
void pshmemx_team_split_3d(shmem_team_t parent, int xrange, int yrange, int zrange,
                           shmem_team_t *xteam, shmem_team_t *yteam, shmem_team_t *zteam);
void pshmemx_ctx_session_start(shmem_ctx_t ctx, long options);
void pshmemx_ctx_session_stop(shmem_ctx_t ctx);

#pragma GCC visibility pop

/* ---- Names from Cray OpenSHMEMX (source compatibility) ------------------------------
 * The rest of HPE Cray OpenSHMEMX's interface: each name is the standard routine of
 * the same meaning (shoal/cx.h), and its pshmemx_ twin the pshmem_ one. */
#include <pshmem.h>
#define SHOAL_CX(name) shmemx_##name
#define SHOAL_CX_STD(name) shmem_##name
#define SHOAL_CX_X(name) shmemx_##name
#include <shoal/cx.h>
#undef SHOAL_CX
#undef SHOAL_CX_STD
#undef SHOAL_CX_X
#define SHOAL_CX(name) pshmemx_##name
#define SHOAL_CX_STD(name) pshmem_##name
#define SHOAL_CX_X(name) pshmemx_##name
#include <shoal/cx.h>
#undef SHOAL_CX
#undef SHOAL_CX_STD
#undef SHOAL_CX_X
/* C11 generic forms: the _nb RMA take an optional context like shmem_put_nbi; the
 * AMOs drop the unused transfer handle. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus) && \
    !defined(SHOAL_BUILDING_LIBRARY)
#define shmemx_put_nb(...) shmem_put_nbi(__VA_ARGS__)
#define shmemx_get_nb(...) shmem_get_nbi(__VA_ARGS__)
#define shmemx_add_nb(target, value, pe, h) ((void)(h), shmem_atomic_add(target, value, pe))
#define shmemx_inc_nb(target, pe, h) ((void)(h), shmem_atomic_inc(target, pe))
#define shmemx_fadd_nb(fetch, target, value, pe, h) \
    ((void)(h), shmem_atomic_fetch_add_nbi(fetch, target, value, pe))
#define shmemx_finc_nb(fetch, target, pe, h) \
    ((void)(h), shmem_atomic_fetch_inc_nbi(fetch, target, pe))
#define shmemx_swap_nb(fetch, target, value, pe, h) \
    ((void)(h), shmem_atomic_swap_nbi(fetch, target, value, pe))
#define shmemx_cswap_nb(fetch, target, cond, value, pe, h) \
    ((void)(h), shmem_atomic_compare_swap_nbi(fetch, target, cond, value, pe))
#endif

/* ---- Names from Sandia OpenSHMEM (source compatibility) -----------------------------
 * Routines that Sandia OpenSHMEM offered as extensions before the specification took
 * them in, under their old names: each is the standard routine it became. */
#define SHMEMX_TEAM_NODE SHMEM_TEAM_SHARED /* Shoal's shared team is the node */

/* Blocked strided RMA (1.6: shmem_ibput/shmem_ibget). */
#define SHOAL_SOS_IBRMA(TYPE, N)                                                          \
    static inline void shmemx_##N##_ibput(TYPE *dest, const TYPE *source, ptrdiff_t dst,  \
                                          ptrdiff_t sst, size_t bsize, size_t nblocks,    \
                                          int pe)                                         \
    { shmem_##N##_ibput(dest, source, dst, sst, bsize, nblocks, pe); }                    \
    static inline void shmemx_##N##_ibget(TYPE *dest, const TYPE *source, ptrdiff_t dst,  \
                                          ptrdiff_t sst, size_t bsize, size_t nblocks,    \
                                          int pe)                                         \
    { shmem_##N##_ibget(dest, source, dst, sst, bsize, nblocks, pe); }                    \
    static inline void shmemx_ctx_##N##_ibput(shmem_ctx_t ctx, TYPE *dest,                \
                                              const TYPE *source, ptrdiff_t dst,          \
                                              ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                              int pe)                                     \
    { shmem_ctx_##N##_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }           \
    static inline void shmemx_ctx_##N##_ibget(shmem_ctx_t ctx, TYPE *dest,                \
                                              const TYPE *source, ptrdiff_t dst,          \
                                              ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                              int pe)                                     \
    { shmem_ctx_##N##_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
SHMEM_RMA_TYPES(SHOAL_SOS_IBRMA)
#undef SHOAL_SOS_IBRMA
#define SHOAL_SOS_IBRMA_SIZED(S)                                                          \
    static inline void shmemx_ibput##S(void *dest, const void *source, ptrdiff_t dst,     \
                                       ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    { shmem_ibput##S(dest, source, dst, sst, bsize, nblocks, pe); }                       \
    static inline void shmemx_ibget##S(void *dest, const void *source, ptrdiff_t dst,     \
                                       ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    { shmem_ibget##S(dest, source, dst, sst, bsize, nblocks, pe); }
SHMEM_RMA_SIZES(SHOAL_SOS_IBRMA_SIZED)
#undef SHOAL_SOS_IBRMA_SIZED

/* Scans (1.6: shmem_TYPENAME_sum_inscan/exscan). */
#define SHOAL_SOS_SCAN(TYPE, N)                                                           \
    static inline int shmemx_##N##_sum_inscan(shmem_team_t team, TYPE *dest,             \
                                              const TYPE *source, size_t nelems)          \
    { return shmem_##N##_sum_inscan(team, dest, source, nelems); }                        \
    static inline int shmemx_##N##_sum_exscan(shmem_team_t team, TYPE *dest,             \
                                              const TYPE *source, size_t nelems)          \
    { return shmem_##N##_sum_exscan(team, dest, source, nelems); }
SHMEM_REDUCE_ARITH_TYPES(SHOAL_SOS_SCAN)
#undef SHOAL_SOS_SCAN

#ifdef __cplusplus
}
#endif

#endif
