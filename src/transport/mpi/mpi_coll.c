/* Team and active-set collectives as MPI collectives (the paper's Table 2):
 *   barrier -> MPI_Ibarrier     broadcast -> MPI_Bcast      fcollect -> MPI_Allgather
 *   collect -> MPI_Allgather of the sizes, then MPI_Allgatherv
 *   alltoall(s) -> MPI_Alltoall (strided: of vector types)
 *   reduce/to_all -> MPI_Allreduce   sum_inscan/exscan -> MPI_Scan/MPI_Exscan
 * over a communicator of the members made with MPI_Comm_create_group (collective
 * over the members only, as SHMEM collectives are) and cached by member set
 * ((start, stride, size), or the list of an explicit team), so a team or an active
 * set pays for it once. Whether MPI takes a call
 * depends only on arguments every member passes alike, never on local state, so the
 * members always agree on which path runs. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "transport/mpi/mpi_tr.h"

struct comm_entry {
    struct shoal_members m; /* m.pes: this entry's own copy */
    MPI_Comm comm;
    struct comm_entry *next;
};

static struct comm_entry *comms;
static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;

/* An explicit list is never evenly spaced (api/team.c), so each set has one form. */
static int same_members(const struct shoal_members *a, const struct shoal_members *b)
{
    if (a->size != b->size || !a->pes != !b->pes)
        return 0;
    if (a->pes)
        return !memcmp(a->pes, b->pes, (size_t)a->size * sizeof *a->pes);
    return a->start == b->start && a->stride == b->stride;
}

static MPI_Comm lookup(const struct shoal_members *m)
{
    pthread_mutex_lock(&comms_lock);
    struct comm_entry *e = comms;
    while (e && !same_members(&e->m, m))
        e = e->next;
    pthread_mutex_unlock(&comms_lock);
    return e ? e->comm : MPI_COMM_NULL;
}

/* The members' communicator, rank i = member i; made on first use. Every collective
 * starts here, so this is where an MPI finalized under Shoal's feet is caught (MPI's
 * own report would name neither SHMEM nor the remedy); it costs far less than the
 * collective itself. */
static MPI_Comm members(const struct shoal_members *m)
{
    int size = m->size;
    if (mpi_world_lost(&mt.world))
        MT_FATAL("shoal",
                 "a SHMEM collective was called after the application's MPI_Finalize; "
                 "with SHOAL_TRANSPORT=%s every SHMEM call, shmem_finalize included, "
                 "must come before MPI_Finalize",
                 mt.st->cfg.transport);
    if (!m->pes && m->start == 0 && m->stride == 1 && size == mt.st->n_pes)
        return mt.comm;
    MPI_Comm comm = lookup(m);
    if (comm != MPI_COMM_NULL)
        return comm;
    int *ranks = malloc((size_t)size * sizeof *ranks);
    struct comm_entry *e = malloc(sizeof *e);
    if (!ranks || !e)
        MT_FATAL("shoal", "out of memory for an MPI communicator of %d PEs", size);
    for (int i = 0; i < size; i++)
        ranks[i] = shoal_member_pe(m->start, m->stride, m->pes, i);
    MPI_Group world, group;
    MPI_Comm_group(mt.comm, &world);
    MPI_Group_incl(world, size, ranks, &group);
    MPI_Comm_create_group(mt.comm, group, 0, &comm);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    *e = (struct comm_entry){ *m, comm, NULL };
    if (m->pes)
        e->m.pes = ranks; /* the list: ranks is a copy of it */
    else
        free(ranks);
    pthread_mutex_lock(&comms_lock);
    e->next = comms;
    comms = e;
    pthread_mutex_unlock(&comms_lock);
    return comm;
}

void mpi_coll_fini(void)
{
    while (comms) {
        struct comm_entry *e = comms;
        comms = e->next;
        MPI_Comm_free(&e->comm);
        free((void *)e->m.pes);
        free(e);
    }
}

/* Polled, so that a barrier that can never complete (a PE has finalized after fewer
 * barriers) ends the job with the mismatch. Every barrier: a non-blocking collective
 * never matches a blocking one, and the PEs of a mismatch make different calls. The
 * other collectives block in MPI: their non-blocking forms cost several times more
 * in Open MPI (docs/debugging.md). */
static int mc_barrier(const struct shoal_members *m, struct shoal_coll_wait *w)
{
    MPI_Request r;
    int done = 0;
    MPI_Comm comm = members(m);
    mpi_enter();
    MPI_Ibarrier(comm, &r);
    while (MPI_Test(&r, &done, MPI_STATUS_IGNORE), !done) {
        if (mt.msg)
            mpi_msg_serve(); /* a peer's AMO may be what keeps it from the barrier */
        w->poll(w);
    }
    mpi_leave();
    return 0;
}

static int mc_broadcast(const struct shoal_members *m, void *buf, size_t len, int root)
{
    if (len > INT_MAX)
        return -1;
    MPI_Bcast(buf, (int)len, MPI_BYTE, root, members(m));
    return 0;
}

static int mc_fcollect(const struct shoal_members *m, void *dest, const void *src, size_t len)
{
    if (len > INT_MAX)
        return -1;
    MPI_Allgather(src, (int)len, MPI_BYTE, dest, (int)len, MPI_BYTE, members(m));
    return 0;
}

static int mc_collect(const struct shoal_members *m, void *dest, const void *src, size_t len)
{
    int size = m->size;
    MPI_Comm comm = members(m);
    uint64_t mine = len, *all = malloc((size_t)size * sizeof *all);
    int *counts = malloc((size_t)size * 2 * sizeof *counts);
    if (!all || !counts)
        MT_FATAL("shmem_collect", "out of memory for %d PEs' counts", size);
    MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm);
    /* Every member sees the same sizes, so all decline together. */
    uint64_t total = 0;
    for (int i = 0; i < size; i++) {
        counts[size + i] = (int)total;
        counts[i] = (int)all[i];
        total += all[i];
    }
    int rc = -1;
    if (total <= INT_MAX) {
        MPI_Allgatherv(src, (int)len, MPI_BYTE, dest, counts, counts + size, MPI_BYTE, comm);
        rc = 0;
    }
    free(all);
    free(counts);
    return rc;
}

/* nelems elements of esize bytes, stride elements apart, as one MPI element whose
 * extent is the whole block, so that block j starts j blocks in. */
static MPI_Datatype block_type(size_t nelems, size_t esize, ptrdiff_t stride)
{
    MPI_Datatype v, t;
    MPI_Type_create_hvector((int)nelems, (int)esize, (MPI_Aint)stride * (MPI_Aint)esize,
                            MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)nelems * stride * (MPI_Aint)esize, &t);
    MPI_Type_free(&v);
    MPI_Type_commit(&t);
    return t;
}

static int mc_alltoall(const struct shoal_members *m, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    MPI_Comm comm = members(m);
    if (dst == 1 && sst == 1) {
        if (nelems * esize > INT_MAX)
            return -1;
        int len = (int)(nelems * esize);
        MPI_Alltoall(src, len, MPI_BYTE, dest, len, MPI_BYTE, comm);
        return 0;
    }
    if (dst < 1 || sst < 1 || nelems > INT_MAX || esize > INT_MAX)
        return -1;
    MPI_Datatype st = block_type(nelems, esize, sst), dt = block_type(nelems, esize, dst);
    MPI_Alltoall(src, 1, st, dest, 1, dt, comm);
    MPI_Type_free(&st);
    MPI_Type_free(&dt);
    return 0;
}

static MPI_Datatype red_type(enum shoal_red_kind kind, size_t esize)
{
    switch (kind) {
    case SHOAL_RED_SIGNED:
        return esize == 1    ? MPI_INT8_T
                : esize == 2 ? MPI_INT16_T
                : esize == 4 ? MPI_INT32_T
                : esize == 8 ? MPI_INT64_T
                             : MPI_DATATYPE_NULL;
    case SHOAL_RED_UNSIGNED:
        return esize == 1    ? MPI_UINT8_T
                : esize == 2 ? MPI_UINT16_T
                : esize == 4 ? MPI_UINT32_T
                : esize == 8 ? MPI_UINT64_T
                             : MPI_DATATYPE_NULL;
    case SHOAL_RED_REAL:
        return esize == sizeof(float)          ? MPI_FLOAT
                : esize == sizeof(double)      ? MPI_DOUBLE
                : esize == sizeof(long double) ? MPI_LONG_DOUBLE
                                               : MPI_DATATYPE_NULL;
    case SHOAL_RED_COMPLEX:
        return esize == 2 * sizeof(float)     ? MPI_C_FLOAT_COMPLEX
                : esize == 2 * sizeof(double) ? MPI_C_DOUBLE_COMPLEX
                                              : MPI_DATATYPE_NULL;
    }
    return MPI_DATATYPE_NULL;
}

static MPI_Op red_op(enum shoal_red_op op)
{
    switch (op) {
    case SHOAL_RED_AND: return MPI_BAND;
    case SHOAL_RED_OR: return MPI_BOR;
    case SHOAL_RED_XOR: return MPI_BXOR;
    case SHOAL_RED_MAX: return MPI_MAX;
    case SHOAL_RED_MIN: return MPI_MIN;
    case SHOAL_RED_SUM: return MPI_SUM;
    case SHOAL_RED_PROD: return MPI_PROD;
    }
    return MPI_OP_NULL;
}

static int mc_reduce(const struct shoal_members *m, void *dest, const void *src, size_t n,
                     size_t esize, enum shoal_red_kind kind, enum shoal_red_op op)
{
    MPI_Datatype t = red_type(kind, esize);
    if (n > INT_MAX || t == MPI_DATATYPE_NULL)
        return -1;
    MPI_Allreduce(dest == src ? MPI_IN_PLACE : src, dest, (int)n, t, red_op(op), members(m));
    return 0;
}

static int mc_scan(const struct shoal_members *m, void *dest, const void *src, size_t n,
                   size_t esize, enum shoal_red_kind kind, int exclusive)
{
    MPI_Datatype t = red_type(kind, esize);
    if (n > INT_MAX || t == MPI_DATATYPE_NULL)
        return -1;
    MPI_Comm comm = members(m);
    const void *in = dest == src ? MPI_IN_PLACE : src;
    if (!exclusive) {
        MPI_Scan(in, dest, (int)n, t, MPI_SUM, comm);
        return 0;
    }
    MPI_Exscan(in, dest, (int)n, t, MPI_SUM, comm);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) /* MPI leaves it undefined; SHMEM's exclusive sum starts at zero */
        memset(dest, 0, n * esize);
    return 0;
}

const struct shoal_transport_coll mpi_coll = {
    .barrier = mc_barrier,
    .broadcast = mc_broadcast,
    .fcollect = mc_fcollect,
    .collect = mc_collect,
    .alltoall = mc_alltoall,
    .reduce = mc_reduce,
    .scan = mc_scan,
};
