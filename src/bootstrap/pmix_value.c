/* See pmix_value.h. */
#include "pmix_value.h"

#include <limits.h>

int shoal_pmix_count(const pmix_value_t *v, long *out)
{
    switch (v->type) {
    case PMIX_UINT8: *out = v->data.uint8; return 0;
    case PMIX_UINT16: *out = v->data.uint16; return 0;
    case PMIX_UINT32: *out = v->data.uint32; return 0;
    case PMIX_INT: *out = v->data.integer; return 0;
    case PMIX_INT32: *out = v->data.int32; return 0;
    case PMIX_UINT: *out = v->data.uint; return 0;
    default: return -1;
    }
}

const char *shoal_pmix_job_error(long size, pmix_rank_t rank)
{
    if (size < 1)
        return "no PEs";
    if (size > INT_MAX)
        return "more PEs than Shoal can number";
    if (rank >= (unsigned long)size)
        return "this PE's rank lies outside it";
    return NULL;
}
