/* Defines a routine in both of its forms, shmem_ctx_NAME(ctx, ...) and shmem_NAME(...)
 * on the default context (a registered thread's own, shoal_default_ctx), each forwarding to one inline implementation that is told
 * the caller's exact name for error messages. */
#ifndef SHOAL_PAIR_H
#define SHOAL_PAIR_H

#include "api/api.h"

#define SHOAL_UNPAREN(...) __VA_ARGS__

#define SHOAL_DEFINE_PAIR(ret, name, impl, params, args)                                     \
    ret shmem_ctx_##name(shmem_ctx_t ctx, SHOAL_UNPAREN params)                              \
    {                                                                                        \
        return impl(__func__, ctx, SHOAL_UNPAREN args);                                      \
    }                                                                                        \
    ret shmem_##name(SHOAL_UNPAREN params)                                                   \
    {                                                                                        \
        return impl(__func__, shoal_default_ctx(), SHOAL_UNPAREN args);                      \
    }                                                                                        \
    SHOAL_PROFILED(shmem_ctx_##name)                                                         \
    SHOAL_PROFILED(shmem_##name)

#endif
