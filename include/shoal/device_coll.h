/* Collectives from device code (included by shmemx_device.h, after its routines):
 * barriers and reductions over a team, in a thread form (one thread of the PE calls)
 * and a block form (every thread of the block calls, with the same arguments).
 *
 * They are built on the header's own put, get, AMO and wait, so a member on this node
 * is reached through its device heap's mapping and one on another node through the
 * proxy. Their state lies in the first SHMEMX_DEV_COLL_BYTES of every PE's device heap,
 * which the library reserves (at the same offset on every PE) and keeps there, for
 * each team slot, the team's shape as this PE sees it (written when the team is
 * created) and the barrier's words:
 *
 *   arrive   member 0's: every other member adds 1 per barrier;
 *   release  every member's but member 0's: member 0 sets it to the barrier's number;
 *   epoch    this PE's count of device barriers on the team (only this PE writes it).
 *
 * Rules: device collectives on a team are called by every member, in the same order,
 * never at the same time as host collectives on that team; one reduction at a time per
 * PE (the work buffers are the PE's, not the team's); dest and source are symmetric
 * objects of the device heap; dest and source of a reduction are the same or do not
 * overlap. docs/gpu.md says more. */
#ifndef SHOAL_DEVICE_COLL_H
#define SHOAL_DEVICE_COLL_H

#include <shoal/type_tables.h>

#define SHMEMX_DEV_TEAM_SLOTS 64
#define SHMEMX_DEV_COLL_WORK ((size_t)32 * 1024) /* bytes of each work buffer */

struct shmemx_dev_team_desc {
    uint64_t handle; /* the shmem_team_t, 0 when the slot is free */
    int32_t start, stride, size, me; /* world PE of member i: start + i * stride;
                                      * stride 0: an explicit team (host only) */
    uint64_t pad;
};

struct shmemx_dev_coll_sync {
    uint64_t arrive, release, epoch;
    uint64_t pad[5];
};

struct shmemx_dev_coll_area {
    struct shmemx_dev_team_desc team[SHMEMX_DEV_TEAM_SLOTS];
    struct shmemx_dev_coll_sync sync[SHMEMX_DEV_TEAM_SLOTS];
    char work[2][SHMEMX_DEV_COLL_WORK]; /* a reduction's accumulator and inbox */
};
/* At offset 0 of the device heap, rounded up so that allocations stay aligned. */
#define SHMEMX_DEV_COLL_BYTES ((sizeof(struct shmemx_dev_coll_area) + 4095) & ~(size_t)4095)

/* ---- thread indices and the block's barrier ---------------------------------------- */
#ifdef SHMEMX_DEV_GPU
SHMEMX_DEV_FN int shmemx_dcoll_tid_(void)
{
    return (int)(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
}
SHMEMX_DEV_FN int shmemx_dcoll_nt_(void)
{
    return (int)(blockDim.x * blockDim.y * blockDim.z);
}
#define shmemx_dcoll_sync_() __syncthreads()
#else
/* emu: the block is the launch (shmemx_device_launch's threads), as the warp and
 * block forms of shmemx_device.h see it. */
static inline int shmemx_dcoll_tid_(void)
{
    int rank;
    shmemx_device_group(0, &rank, "a _block collective");
    return rank;
}
static inline int shmemx_dcoll_nt_(void)
{
    int rank;
    return shmemx_device_group(0, &rank, "a _block collective");
}
#define shmemx_dcoll_sync_() shmemx_device_group_sync(0, "a _block collective")
#endif

/* ---- the engine -------------------------------------------------------------------- */

SHMEMX_DEV_FN struct shmemx_dev_coll_area *shmemx_dcoll_area_(const struct shmemx_dev_state *st)
{
    return (struct shmemx_dev_coll_area *)st->peer[st->my_pe]; /* this PE's, by load/store */
}

/* The team's slot, found by its handle; ends the job for an unknown team or a PE that
 * is not a member. */
SHMEMX_DEV_FN int shmemx_dcoll_slot_(const struct shmemx_dev_state *st, shmem_team_t team,
                                     const char *routine)
{
    const struct shmemx_dev_coll_area *a = shmemx_dcoll_area_(st);
    for (int s = 0; s < SHMEMX_DEV_TEAM_SLOTS; s++)
        if (a->team[s].handle == (uint64_t)(uintptr_t)team && team) {
            if (a->team[s].me < 0)
                shmemx_abort_(routine, "this PE is not a member of the team");
            if (a->team[s].stride == 0)
                shmemx_abort_(routine, "the team's members are not evenly spaced PEs (a "
                                       "colour/key split); device code runs collectives "
                                       "on strided teams only: call the host collective, "
                                       "or split a strided team");
            return s;
        }
    shmemx_abort_(routine, "the team is not a live team of this PE (SHMEM_TEAM_INVALID, "
                           "destroyed, or not a shmem_team_t)");
    return -1;
}

/* The program's address of a word of the area (what put, AMO and wait take). */
SHMEMX_DEV_FN void *shmemx_dcoll_sym_(const struct shmemx_dev_state *st, const void *p)
{
    return (char *)(uintptr_t)st->heap_base + ((const char *)p - st->peer[st->my_pe]);
}

/* One thread: the barrier of team slot s. Completes this PE's device operations
 * first (quiet), as the host barrier does. */
SHMEMX_DEV_FN void shmemx_dcoll_barrier_(const struct shmemx_dev_state *st, int s,
                                         const char *routine)
{
    struct shmemx_dev_coll_area *a = shmemx_dcoll_area_(st);
    const struct shmemx_dev_team_desc *t = &a->team[s];
    struct shmemx_dev_coll_sync *y = &a->sync[s];
    shmemx_dev_quiet();
    if (t->size == 1)
        return;
    uint64_t e = ++y->epoch;
    if (t->me == 0) {
        shmemx_wait_(shmemx_dcoll_sym_(st, &y->arrive), 8, 0, SHMEM_CMP_GE,
                     e * (uint64_t)(t->size - 1), routine);
        for (int i = 1; i < t->size; i++)
            shmemx_amo_(shmemx_dcoll_sym_(st, &y->release), 8, SHMEMX_DEV_AMO_SET, e, 0, 0,
                        t->start + i * t->stride, routine);
        shmemx_dev_quiet();
    } else {
        shmemx_amo_(shmemx_dcoll_sym_(st, &y->arrive), 8, SHMEMX_DEV_AMO_ADD, 1, 0, 0,
                    t->start, routine);
        shmemx_dev_quiet();
        shmemx_wait_(shmemx_dcoll_sym_(st, &y->release), 8, 0, SHMEM_CMP_GE, e, routine);
    }
}

/* A reduction of nreduce elements of esize bytes; comb(acc, in, lo, hi) combines
 * elements [lo, hi) of the work buffers. Member me reduces slice me of every member's
 * source, chunk by chunk through the work buffers (its own, so no barrier per chunk),
 * and puts it into every member's dest: no one else reads or writes that slice, so
 * dest may be source. Every thread of a block form calls it (block = 1), one thread
 * otherwise; the block's threads share the combining and thread 0 moves the data. */
typedef void (*shmemx_dcoll_comb_t)(void *acc, const void *in, size_t lo, size_t hi);
SHMEMX_DEV_FN void shmemx_dcoll_reduce_(shmem_team_t team, void *dest, const void *source,
                                        size_t nreduce, size_t esize, shmemx_dcoll_comb_t comb,
                                        int block, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    int lead = !block || shmemx_dcoll_tid_() == 0;
    int tid = block ? shmemx_dcoll_tid_() : 0, nt = block ? shmemx_dcoll_nt_() : 1;
    int s = shmemx_dcoll_slot_(st, team, routine);
    struct shmemx_dev_coll_area *a = shmemx_dcoll_area_(st);
    const struct shmemx_dev_team_desc *t = &a->team[s];
    if (nreduce && lead) {
        shmemx_off_(st, dest, nreduce * esize, routine);
        shmemx_off_(st, source, nreduce * esize, routine);
        shmemx_dcoll_barrier_(st, s, routine); /* sources ready, dests free */
    }
    if (block)
        shmemx_dcoll_sync_();
    if (!nreduce)
        return;
    size_t piece = (nreduce + (size_t)t->size - 1) / (size_t)t->size;
    size_t lo = (size_t)t->me * piece, per = SHMEMX_DEV_COLL_WORK / esize;
    size_t hi = lo + piece < nreduce ? lo + piece : nreduce;
    char *acc = a->work[0], *in = a->work[1];
    void *acc_sym = shmemx_dcoll_sym_(st, acc), *in_sym = shmemx_dcoll_sym_(st, in);
    for (size_t at = lo; at < hi; at += per) {
        size_t m = hi - at < per ? hi - at : per, off = at * esize;
        size_t k0 = m * (size_t)tid / (size_t)nt, k1 = m * (size_t)(tid + 1) / (size_t)nt;
        if (lead)
            shmemx_rma_(acc_sym, (const char *)source + off, m * esize, st->my_pe, 0, 1,
                        routine);
        for (int i = 1; i < t->size; i++) {
            if (lead)
                shmemx_rma_(in_sym, (const char *)source + off, m * esize,
                            t->start + ((t->me + i) % t->size) * t->stride, 0, 1, routine);
            if (block)
                shmemx_dcoll_sync_();
            comb(acc, in, k0, k1);
            if (block)
                shmemx_dcoll_sync_();
        }
        if (lead)
            for (int i = 0; i < t->size; i++) /* blocking: acc is reused next chunk */
                shmemx_rma_((char *)dest + off, acc_sym, m * esize,
                            t->start + ((t->me + i) % t->size) * t->stride, 0, 0, routine);
    }
    if (lead)
        shmemx_dcoll_barrier_(st, s, routine); /* every dest whole */
    if (block)
        shmemx_dcoll_sync_();
}

/* ---- the routines ------------------------------------------------------------------ */

/* shmemx_dev_team_barrier(team): one thread of each member calls it; returns once
 * every member has called it and every device operation this PE issued before it is
 * complete (the host barrier's guarantee). _block: every thread of the block calls
 * it; the threads are synchronized before it returns. */
SHMEMX_DEV_FN void shmemx_dev_team_barrier(shmem_team_t team)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    shmemx_dcoll_barrier_(st, shmemx_dcoll_slot_(st, team, "shmemx_dev_team_barrier"),
                          "shmemx_dev_team_barrier");
}
SHMEMX_DEV_FN void shmemx_dev_team_barrier_block(shmem_team_t team)
{
    shmemx_dcoll_sync_(); /* the block's earlier operations are issued */
    if (shmemx_dcoll_tid_() == 0)
        shmemx_dev_team_barrier(team);
    shmemx_dcoll_sync_();
}
/* The world team is slot 0 (its handle is the host's &shoal_team_world, which device
 * code cannot name). */
SHMEMX_DEV_FN void shmemx_dev_barrier_all(void)
{
    shmemx_dcoll_barrier_(shmemx_st_(), 0, "shmemx_dev_barrier_all");
}
SHMEMX_DEV_FN void shmemx_dev_barrier_all_block(void)
{
    shmemx_dcoll_sync_();
    if (shmemx_dcoll_tid_() == 0)
        shmemx_dev_barrier_all();
    shmemx_dcoll_sync_();
}

/* shmemx_dev_TYPENAME_OP_reduce(team, dest, source, nreduce) and _block: the host
 * routine's result in every member's dest (OP: and/or/xor for the integer types of the
 * bitwise table, min/max, sum/prod); returns 0. */
#define SHMEMX_DCOLL_OP_and(x, y) ((x) & (y))
#define SHMEMX_DCOLL_OP_or(x, y) ((x) | (y))
#define SHMEMX_DCOLL_OP_xor(x, y) ((x) ^ (y))
#define SHMEMX_DCOLL_OP_max(x, y) ((x) > (y) ? (x) : (y))
#define SHMEMX_DCOLL_OP_min(x, y) ((x) < (y) ? (x) : (y))
#define SHMEMX_DCOLL_OP_sum(x, y) ((x) + (y))
#define SHMEMX_DCOLL_OP_prod(x, y) ((x) * (y))
#define SHMEMX_DCOLL_REDUCE(T, N, OP)                                                        \
    SHMEMX_DEV_FN void shmemx_dcoll_##N##_##OP##_(void *acc, const void *in, size_t lo,      \
                                                  size_t hi)                                 \
    {                                                                                        \
        T *x = (T *)acc;                                                                     \
        const T *y = (const T *)in;                                                          \
        for (size_t k = lo; k < hi; k++)                                                     \
            x[k] = (T)SHMEMX_DCOLL_OP_##OP(x[k], y[k]);                                      \
    }                                                                                        \
    SHMEMX_DEV_FN int shmemx_dev_##N##_##OP##_reduce(shmem_team_t team, T *dest,             \
                                                     const T *source, size_t nreduce)        \
    {                                                                                        \
        shmemx_dcoll_reduce_(team, dest, source, nreduce, sizeof(T),                         \
                             shmemx_dcoll_##N##_##OP##_, 0,                                  \
                             "shmemx_dev_" #N "_" #OP "_reduce");                            \
        return 0;                                                                            \
    }                                                                                        \
    SHMEMX_DEV_FN int shmemx_dev_##N##_##OP##_reduce_block(shmem_team_t team, T *dest,       \
                                                           const T *source, size_t nreduce)  \
    {                                                                                        \
        shmemx_dcoll_reduce_(team, dest, source, nreduce, sizeof(T),                         \
                             shmemx_dcoll_##N##_##OP##_, 1,                                  \
                             "shmemx_dev_" #N "_" #OP "_reduce_block");                      \
        return 0;                                                                            \
    }
#define SHMEMX_DCOLL_BITWISE(T, N)                                                           \
    SHMEMX_DCOLL_REDUCE(T, N, and) SHMEMX_DCOLL_REDUCE(T, N, or) SHMEMX_DCOLL_REDUCE(T, N, xor)
#define SHMEMX_DCOLL_MINMAX(T, N) SHMEMX_DCOLL_REDUCE(T, N, max) SHMEMX_DCOLL_REDUCE(T, N, min)
#define SHMEMX_DCOLL_ARITH(T, N) SHMEMX_DCOLL_REDUCE(T, N, sum) SHMEMX_DCOLL_REDUCE(T, N, prod)
SHMEMX_DEV_REDUCE_BITWISE_TYPES(SHMEMX_DCOLL_BITWISE)
SHMEMX_DEV_REDUCE_MINMAX_TYPES(SHMEMX_DCOLL_MINMAX)
SHMEMX_DEV_REDUCE_ARITH_TYPES(SHMEMX_DCOLL_ARITH)

#endif
