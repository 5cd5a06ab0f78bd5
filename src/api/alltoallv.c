/* Cray OpenSHMEMX's variable-size all-to-all, in its active-set and team forms (the
 * algorithm: coll/alltoallv.c). An active set of every PE runs as the world team. */
#include <shmemx.h>

#include "coll/coll_common.h"

static void set_begin(const char *fn, int PE_start, int logPE_stride, int PE_size,
                      long *pSync, struct coll *c)
{
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, c);
    if (coll_set_is_world(c))
        coll_team_begin(fn, SHMEM_TEAM_WORLD, c);
}

void shmemx_alltoallv(void *target, size_t *t_offsets, size_t *t_sizes, const void *source,
                      size_t *s_offsets, size_t *s_sizes, int PE_start, int logPE_stride,
                      int PE_size, long *pSync)
{
    struct coll c;
    set_begin(__func__, PE_start, logPE_stride, PE_size, pSync, &c);
    coll_alltoallv(__func__, &c, target, t_offsets, t_sizes, source, s_offsets, s_sizes);
}
SHOAL_PROFILED(shmemx_alltoallv)

void shmemx_alltoallv_packed(void *target, size_t target_len, size_t *t_size,
                             const void *source, size_t *s_offsets, size_t *s_sizes,
                             int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct coll c;
    set_begin(__func__, PE_start, logPE_stride, PE_size, pSync, &c);
    coll_alltoallv_packed(__func__, &c, target, target_len, t_size, source, s_offsets,
                          s_sizes);
}
SHOAL_PROFILED(shmemx_alltoallv_packed)

int shmemx_team_alltoallv(shmem_team_t team, void *target, size_t *t_offsets, size_t *t_sizes,
                          const void *source, size_t *s_offsets, size_t *s_sizes)
{
    struct coll c;
    if (coll_team_begin(__func__, team, &c))
        return -1;
    coll_alltoallv(__func__, &c, target, t_offsets, t_sizes, source, s_offsets, s_sizes);
    return 0;
}
SHOAL_PROFILED(shmemx_team_alltoallv)

int shmemx_team_alltoallv_packed(shmem_team_t team, void *target, size_t target_len,
                                 size_t *t_size, const void *source, size_t *s_offsets,
                                 size_t *s_sizes)
{
    struct coll c;
    if (coll_team_begin(__func__, team, &c))
        return -1;
    coll_alltoallv_packed(__func__, &c, target, target_len, t_size, source, s_offsets,
                          s_sizes);
    return 0;
}
SHOAL_PROFILED(shmemx_team_alltoallv_packed)
