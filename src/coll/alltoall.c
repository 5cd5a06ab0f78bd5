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

/* Where the blocks of an alltoall's buffer lie: n blocks of nelems elements, stride
 * elements apart, block j at j * nelems * stride elements. */
static struct coll_dev_side dev_side(const void *buf, int n, size_t nelems, ptrdiff_t stride,
                                     size_t esize)
{
    ptrdiff_t e = stride * (ptrdiff_t)esize;
    return (struct coll_dev_side){ (char *)buf, n, (ptrdiff_t)nelems * e, e, NULL, NULL };
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
        COLL_DEV_STAGED (st, fn, &c, nelems, esize, dev_side(source, c.n, nelems, sst, esize),
                         dev_side(dest, c.n, nelems, dst, esize), 0)
            team_alltoall(fn, team, st.out, st.in, 1, 1, st.m, esize);
        return 0;
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
    if (coll_dev_needed(dest, source)) {
        COLL_DEV_STAGED (st, fn, &c, nelems, esize, dev_side(source, c.n, nelems, sst, esize),
                         dev_side(dest, c.n, nelems, dst, esize), 0)
            set_alltoall(fn, st.out, st.in, 1, 1, st.m, esize, PE_start, logPE_stride,
                         PE_size, pSync);
        return;
    }
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
