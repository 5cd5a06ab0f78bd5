/* Collectives on device memory (coll_device.h): staged through host memory. */
#include "coll/coll_device.h"

#include "core/team.h"
#include "device/device.h"

int coll_dev_involved(const void *a, const void *b)
{
    const void *p[2] = { a, b };
    for (int i = 0; i < 2; i++)
        if (p[i] &&
            (shoal_dev_sym(p[i]) ||
             (shoal.cfg.enable_device_awareness && shoal_dev_is_device(p[i]))))
            return 1;
    return 0;
}

static int is_dev(const void *p)
{
    return shoal_dev_sym(p) || (shoal.cfg.enable_device_awareness && shoal_dev_is_device(p));
}

void coll_dev_copy(void *dst, const void *src, size_t n)
{
    int dd = is_dev(dst), sd = is_dev(src), rc = 0;
    if (!n)
        return;
    if (dd && sd)
        rc = shoal_dev_d2d(dst, src, n);
    else if (dd)
        rc = shoal_dev_h2d(dst, src, n);
    else if (sd)
        rc = shoal_dev_d2h(dst, src, n);
    else
        memcpy(dst, src, n);
    if (rc)
        shoal_fatal("shoal", "the %s device failed a %zu-byte copy of a collective",
                    shoal_dev->name, n);
}

char *coll_dev_stage(const char *fn, const struct coll *c)
{
    if (!c->team || !shoal.dev_stage)
        shoal_fatal(fn,
                    "collectives on device memory need a device heap "
                    "(SHMEM_SYMMETRIC_SIZE_DEVICE) and a team (not an active set)");
    return shoal.dev_stage + (size_t)c->team->slot * SHOAL_DEV_STAGE_BYTES;
}
