/* alltoall / alltoalls: block j of member i's source lands in block i of member j's
 * dest. Pairwise order (member me + i at step i) spreads the writers over the
 * targets; each block is put once, straight into its final place, and one barrier
 * (team or pSync) completes them all. */
#include "coll/coll_common.h"
#include "coll/coll_device.h"

void coll_alltoall_direct(const struct coll *c, void *dest, const void *source, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t esize)
{
    int n = c->n, me = c->me;
    char *d = (char *)dest + (ptrdiff_t)me * (ptrdiff_t)nelems * dst * (ptrdiff_t)esize;
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        const char *s = (const char *)source +
                (ptrdiff_t)j * (ptrdiff_t)nelems * sst * (ptrdiff_t)esize;
        if (dst == 1 && sst == 1)
            coll_put(c, j, d, s, nelems * esize);
        else
            coll_iput(c, j, d, s, dst, sst, nelems, esize);
    }
    coll_barrier(c);
}

static int team_alltoall(const char *fn, shmem_team_t team, void *dest, const void *source,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize);

/* Device memory (coll_device.h): the host alltoall of one piece of every block at a
 * time (block j of source goes to member j, whose block i of dest receives it). */
static int dev_alltoall(const char *fn, shmem_team_t team, const struct coll *c, char *dest,
                        const char *source, size_t block)
{
    char *st = coll_dev_stage(fn, c);
    size_t half = SHOAL_DEV_STAGE_BYTES / 2, piece = half / (size_t)c->n;
    for (size_t off = 0; off < block; off += piece) {
        size_t m = block - off < piece ? block - off : piece;
        for (int j = 0; j < c->n; j++)
            coll_dev_copy(st + (size_t)j * m, source + (size_t)j * block + off, m);
        team_alltoall(fn, team, st + half, st, 1, 1, m, 1);
        for (int i = 0; i < c->n; i++)
            coll_dev_copy(dest + (size_t)i * block + off, st + half + (size_t)i * m, m);
        shoal_team_barrier(c->team);
    }
    return 0;
}

static int team_alltoall(const char *fn, shmem_team_t team, void *dest, const void *source,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    struct coll c;
    if (coll_team_begin(fn, team, &c))
        return -1;
    COLL_AGREE(fn, &c, COLL_ARG_SIZE("nelems", nelems), COLL_ARG_INT("dst", dst),
               COLL_ARG_INT("sst", sst));
    if (!nelems)
        return 0;
    if (coll_dev_needed(dest, source)) {
        if (dst != 1 || sst != 1)
            shoal_fatal(fn,
                        "strided alltoalls on device memory are not supported; use "
                        "shmem_alltoall or stage through SHMEM_SPACE_DEFAULT");
        return dev_alltoall(fn, team, &c, dest, source, nelems * esize);
    }
    coll_check_sym(fn, dest, esize);
    /* PE j's block of nelems elements lands j * nelems elements in, dst apart. */
    shoal_check_strided(fn, dest, dst, nelems * (size_t)c.n, esize, esize);
    if (COLL_NET(&c, alltoall, dest, source, dst, sst, nelems, esize))
        return 0;
    coll_alltoall_direct(&c, dest, source, dst, sst, nelems, esize);
    return 0;
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return team_alltoall(__func__, team, dest, source, 1, 1, nelems, 1);
}
SHOAL_PROFILED(shmem_alltoallmem)

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return team_alltoall(__func__, team, dest, source, dst, sst, nelems, 1);
}
SHOAL_PROFILED(shmem_alltoallsmem)

#define COLL_ALLTOALL(T, N)                                                                  \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)     \
    {                                                                                        \
        return team_alltoall(__func__, team, dest, source, 1, 1, nelems, sizeof(T));         \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_alltoall)                                                     \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems)                                  \
    {                                                                                        \
        return team_alltoall(__func__, team, dest, source, dst, sst, nelems, sizeof(T));     \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_alltoalls)
SHMEM_RMA_TYPES(COLL_ALLTOALL)

static void set_alltoall(const char *fn, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t esize, int PE_start,
                         int logPE_stride, int PE_size, long *pSync)
{
    struct coll c;
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, &c);
    if (!nelems)
        return;
    coll_check_sym(fn, dest, esize);
    shoal_check_strided(fn, dest, dst, nelems * (size_t)c.n, esize, esize);
    if (COLL_NET(&c, alltoall, dest, source, dst, sst, nelems, esize))
        return;
    coll_alltoall_direct(&c, dest, source, dst, sst, nelems, esize);
}

#define COLL_SET_ALLTOALL(BITS, BYTES)                                                       \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                              int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                        \
        set_alltoall(__func__, dest, source, 1, 1, nelems, BYTES, PE_start, logPE_stride,    \
                     PE_size, pSync);                                                        \
    }                                                                                        \
    SHOAL_PROFILED(shmem_alltoall##BITS)                                                     \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                               long *pSync)                                                  \
    {                                                                                        \
        set_alltoall(__func__, dest, source, dst, sst, nelems, BYTES, PE_start,              \
                     logPE_stride, PE_size, pSync);                                          \
    }                                                                                        \
    SHOAL_PROFILED(shmem_alltoalls##BITS)
COLL_SET_SIZES(COLL_SET_ALLTOALL)
