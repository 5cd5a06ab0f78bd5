/* Sandia OpenSHMEM's performance counters (shmemx_pcntr_*): what a context has issued
 * and completed, and what completed with this PE as target. transport/pcntr.c counts;
 * docs/extensions.md says what each number means with SHOAL_PCNTR on and off. */
#include <shmemx.h>

#include "api/api.h"

static struct shoal_pcntr_report report(const char *fn, shmem_ctx_t ctx, const void *out)
{
    shoal_require_init(fn);
    shoal_check_ctx(fn, ctx);
    if (SHOAL_UNLIKELY(out == NULL))
        shoal_fatal(fn, "the result pointer is NULL; pass the address of a uint64_t");
    struct shoal_pcntr_report r;
    shoal_pcntr_report(ctx, &r);
    return r;
}

void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = report(__func__, ctx, cntr_value).issued_writes;
}
SHOAL_PROFILED(shmemx_pcntr_get_issued_write)

void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = report(__func__, ctx, cntr_value).issued_reads;
}
SHOAL_PROFILED(shmemx_pcntr_get_issued_read)

void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = report(__func__, ctx, cntr_value).completed_writes;
}
SHOAL_PROFILED(shmemx_pcntr_get_completed_write)

void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = report(__func__, ctx, cntr_value).completed_reads;
}
SHOAL_PROFILED(shmemx_pcntr_get_completed_read)

/* Not per context, as in SOS: the operations other PEs aimed at this one. */
void shmemx_pcntr_get_completed_target(uint64_t *cntr_value)
{
    *cntr_value = report(__func__, SHMEM_CTX_DEFAULT, cntr_value).target;
}
SHOAL_PROFILED(shmemx_pcntr_get_completed_target)

void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr)
{
    struct shoal_pcntr_report r = report(__func__, ctx, pcntr);
    *pcntr = (shmemx_pcntr_t){ .pending_put = r.issued_writes,
                               .pending_get = r.issued_reads,
                               .completed_put = r.completed_writes,
                               .completed_get = r.completed_reads,
                               .target = r.target };
}
SHOAL_PROFILED(shmemx_pcntr_get_all)
