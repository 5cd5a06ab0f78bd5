/* The same-node transport: a peer's symmetric memory is mapped into this process, so
 * RMA is memcpy, AMOs are CPU atomics, and completion is a memory fence. Everything
 * here is inline; the hot path has no locks, no allocation and no system call. */
#ifndef SHOAL_SHM_H
#define SHOAL_SHM_H

#include <string.h>

/* glibc's memcpy switches to non-temporal stores for large copies, and those are
 * ordered only by a full fence; smaller copies need only a compiler-level release. */
#define SHOAL_SHM_NT_THRESHOLD (64 * 1024)

static inline void shoal_shm_copy(void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
}

static inline void shoal_shm_release_after(size_t len)
{
    if (len >= SHOAL_SHM_NT_THRESHOLD)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else
        __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* Orders and completes every earlier store of this thread, plain or non-temporal. */
static inline void shoal_shm_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#endif
