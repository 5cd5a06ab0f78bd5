/* The checks on what a PMIx server tells a PE, without libpmix calls, so that
 * boot_pmix.c and the fuzz target share them. */
#ifndef SHOAL_PMIX_VALUE_H
#define SHOAL_PMIX_VALUE_H

#include <pmix_common.h>

/* A count (the job size) as a server gave it: 0 and *out, or -1 when its type is
 * not one of the integer types servers store counts in (they differ in width). */
int shoal_pmix_count(const pmix_value_t *v, long *out);

/* NULL when a job of size PEs holds rank and its PEs can be numbered by an int;
 * otherwise what is impossible about it. */
const char *shoal_pmix_job_error(long size, pmix_rank_t rank);

#endif
