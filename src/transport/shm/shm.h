/* The same-node transport: a peer's symmetric memory is mapped into this process, so
 * RMA is memcpy, AMOs are CPU atomics, and completion is a memory fence. The hot-path
 * pieces are inline here, for transport/transport.h's dispatchers; mapping the peers
 * and the operations table are in shm.c. No locks, no allocation and no system call
 * on the hot path. */
#ifndef SHOAL_SHM_H
#define SHOAL_SHM_H

#include <stdint.h>
#include <string.h>

#include "base/state.h"
#include "transport/amo.h"

/* shoal_shm_peer[seg][pe]: where PE pe's copy of segment seg is mapped in this
 * process; NULL for a PE on another node. Filled at init (shm.c). */
extern char **shoal_shm_peer[SHOAL_NHOST_SEGS];

/* Maps the same-node peers' segments (collective; shoal.seg[] and shoal.node[] are
 * set) and closes this PE's memfds once every peer has mapped them. 0, or -1 when
 * the bootstrap exchange failed. */
int shoal_shm_map(void);
void shoal_shm_unmap(void);

/* glibc's memcpy switches to non-temporal stores for large copies, and those are
 * ordered only by a full fence; smaller copies need only a compiler-level release. */
#define SHOAL_SHM_NT_THRESHOLD (64 * 1024)

/* One aligned element of 1, 2, 4 or 8 bytes moves as one load and one store, as
 * shmem_TYPE_p's value does: a peer polling the word with plain loads sees the old
 * value or the new one, never a mix or a second store of it (glibc's memcpy may store
 * the same bytes twice, or in two parts). Relaxed atomics are plain moves on x86-64
 * and aarch64; may_alias, as the word may be of any type. */
typedef uint16_t __attribute__((may_alias)) shoal_shm_u16;
typedef uint32_t __attribute__((may_alias)) shoal_shm_u32;
typedef uint64_t __attribute__((may_alias)) shoal_shm_u64;
#define SHOAL_SHM_WORD(T, dst, src)                                                          \
    if (!(((uintptr_t)(dst) | (uintptr_t)(src)) & (sizeof(T) - 1))) {                        \
        __atomic_store_n((T *)(dst), __atomic_load_n((const T *)(src), __ATOMIC_RELAXED),    \
                         __ATOMIC_RELAXED);                                                  \
        return;                                                                              \
    }                                                                                        \
    break

static inline void shoal_shm_copy(void *dst, const void *src, size_t len)
{
    switch (len) {
    case 1: *(char *)dst = *(const char *)src; return;
    case 2: SHOAL_SHM_WORD(shoal_shm_u16, dst, src);
    case 4: SHOAL_SHM_WORD(shoal_shm_u32, dst, src);
    case 8: SHOAL_SHM_WORD(shoal_shm_u64, dst, src);
    default: break;
    }
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
