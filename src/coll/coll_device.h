/* Collectives whose buffers are device memory (a device-space object, or with device
 * awareness a device buffer of the program): the algorithms copy and reduce with the
 * CPU, so the team's members run the same collective on host staging (a symmetric part
 * of the host heap per team slot, SHOAL_DEV_STAGE_BYTES, reserved with the device heap)
 * chunk by chunk: copy the source chunk out of the device, run the host collective,
 * copy the result chunk into the device, and a team barrier before the staging is
 * reused. Team-based collectives only (not active sets). */
#ifndef SHOAL_COLL_DEVICE_H
#define SHOAL_COLL_DEVICE_H

#include "coll/coll_common.h"

/* a or b (either may be NULL) is device memory. */
int coll_dev_involved(const void *a, const void *b);
/* A blocking copy between any two of host and device memory. */
void coll_dev_copy(void *dst, const void *src, size_t n);
/* The team's staging: SHOAL_DEV_STAGE_BYTES, the same offset on every member. */
char *coll_dev_stage(const char *fn, const struct coll *c);

/* True when this collective must be staged: one branch when no device is in play. */
static inline int coll_dev_needed(const void *dest, const void *source)
{
    return SHOAL_UNLIKELY(shoal.dev_paths & SHOAL_PATHS_DEV) &&
            coll_dev_involved(dest, source);
}

#endif
