/* The device layer (the paper's GPU transport layer): one table of operations on a
 * device's memory, filled by the backend chosen at shmem_init (SHOAL_DEVICE), and the
 * memory-type cache that tells device buffers from host ones.
 *
 * Backends live in their own folders and know nothing of each other or of the rest of
 * the library: emu/ (built in, an emulated device whose memory host code cannot
 * touch), cuda/ (libcuda.so.1 through dlopen) and rocm/ (libamdhip64.so through
 * dlopen). Every copy but copy_async's is complete when it returns (the backends
 * synchronize), so a copy into a peer's memory is visible to that peer afterwards;
 * copy_async's complete at shoal_dev_complete (quiet, fence and barriers call it).
 * A backend's copies and syncs wait only for the library's own work on the device,
 * never for the program's kernels or streams, and leave the program's current
 * device and context as they found them. */
#ifndef SHOAL_DEVICE_H
#define SHOAL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

/* How a network may reach device memory: the interface it registers the memory
 * through, and the device it lives on (the shape of libfabric's ofi_hmem.h: each
 * backend names its interface once, the transports map it onto their own API). */
enum shoal_dev_iface {
    SHOAL_DEV_IFACE_NONE,   /* the network cannot reach it */
    SHOAL_DEV_IFACE_ALIAS,  /* through a host mapping of the same memory, registered
                               as ordinary host memory (emu) */
    SHOAL_DEV_IFACE_SYSTEM, /* host memory that goes through the network's device-memory
                               registration as plain system memory (FI_HMEM_SYSTEM):
                               emu under the SHOAL_DEVICE_FORCE_HMEM test knob, so that
                               the path of cuda and rocm runs without a GPU */
    SHOAL_DEV_IFACE_CUDA,   /* CUDA device memory (FI_HMEM_CUDA) */
    SHOAL_DEV_IFACE_ROCR,   /* ROCm device memory (FI_HMEM_ROCR) */
};

struct shoal_dev_nic {
    enum shoal_dev_iface iface;
    int device; /* the backend's device number, for the interface */
    void *addr; /* what the network registers and names: the alias or the pointer */
};

/* The interface's name, for messages: "host alias", "system memory", "CUDA memory",
 * "ROCm memory". */
const char *shoal_dev_iface_name(enum shoal_dev_iface iface);

/* What a peer needs to map an allocation of this process; opaque to all but the backend. */
struct shoal_dev_ipc {
    unsigned char bytes[96];
};

struct shoal_dev_ops {
    const char *name;
    /* Loads the backend's library and readies device (local_index modulo the devices
     * present) for this process. 0, or -1 with the reason in err. */
    int (*init)(int local_index, char *err, size_t len);
    /* The device init readied, in the runtime's numbering (emu: local_index modulo the
     * GPUs of a topology file, 0 without one): a PE's GPU for placement and NICs. */
    int (*ordinal)(void);
    void (*fini)(void);
    void *(*alloc)(size_t size); /* NULL when the device has no room */
    int (*free)(void *p);        /* 0, or -1 if p is not an allocation */
    /* 1 when p is device memory of this backend (then [*base, *base + *len) is the
     * allocation holding it), 0 when host memory. */
    int (*query)(const void *p, uintptr_t *base, size_t *len);
    int (*h2d)(void *dst, const void *src, size_t len);
    int (*d2h)(void *dst, const void *src, size_t len);
    int (*d2d)(void *dst, const void *src, size_t len);
    int (*ipc_get)(void *p, struct shoal_dev_ipc *h);
    void *(*ipc_open)(const struct shoal_dev_ipc *h); /* a device pointer, or NULL */
    int (*ipc_close)(void *p);
    /* Waits for every copy this process started, copy_async's included. */
    int (*sync)(void);
    /* Starts a copy between any two of host and device memory (the backend tells which
     * is which) that completes at the next sync, on the backend's own stream, in the
     * order started; NULL when the backend has no such copy. */
    int (*copy_async)(void *dst, const void *src, size_t len);
    /* How the network may reach the allocation holding p directly (GPUDirect-like):
     * fills *nic for p; iface NONE when it cannot. */
    void (*nic)(void *p, struct shoal_dev_nic *nic);
    /* Makes writes that a NIC made into this process's device memory visible to
     * kernels that read it afterwards (cuFlushGPUDirectRDMAWrites); 0 when there is
     * nothing to flush. */
    int (*flush_nic_writes)(void);
    /* Stream-ordered signalling through host memory, for the stream operations
     * (api/stream.c), on words of host_alloc's memory named by their device address
     * (w): stream_write: when the program's stream reaches this point, it stores v
     * into *w. stream_wait: the stream waits there until (int32_t)(*w - v) >= 0. 0,
     * or -1 when the backend or the stream refuses. */
    int (*stream_write)(void *stream, uint32_t *w, uint32_t v);
    int (*stream_wait)(void *stream, uint32_t *w, uint32_t v);
    /* The host has stored into a word that a stream_wait may be waiting on (w as the
     * host reaches it): wakes the stream's waiter at once where a host thread does the
     * waiting (emu); NULL where the device polls the word itself. */
    void (*stream_word_written)(uint32_t *w);
    /* A copy between two device ranges (a peer's through its IPC mapping), queued on
     * the program's stream. */
    int (*stream_copy)(void *stream, void *dst, const void *src, size_t len);
    /* A 64-bit word of device memory (this PE's or a peer's through its IPC mapping)
     * written, or waited on, in stream order: stream_wait64 holds the stream until
     * *w == v (eq) or (int64_t)(*w - v) >= 0. */
    int (*stream_write64)(void *stream, uint64_t *w, uint64_t v);
    int (*stream_wait64)(void *stream, uint64_t *w, uint64_t v, int eq);
    /* host_alloc: size zeroed bytes of host memory that device code and streams reach
     * too (pinned and mapped), at *dev for them; host_free releases it (the stream
     * operations' words, device-initiated communication's ring). The rest serves
     * device-initiated communication (api/devinit.c), NULL where the backend has none:
     * kernel_ptr: where
     * device code loads and stores the device memory at p (an allocation of this
     * process or a peer's opened through IPC). host_kernels: kernels are host functions
     * that the library runs (emu), so shmemx_device_launch serves them. */
    void *(*host_alloc)(size_t size, void **dev);
    void (*host_free)(void *p);
    void *(*kernel_ptr)(void *p);
    int host_kernels;
    /* Collectives on device memory (coll/coll_device.c): dst[i] = dst[i] op src[i] for
     * n elements of esize bytes, kind and op as enum shoal_dev_red_kind and _op say;
     * dst is device memory of this process, src device memory it reaches (its own or a
     * peer's IPC mapping). Ordered after the copies started before it and complete
     * when it returns: 0, or -1 when the backend refuses. n = 0 asks whether it
     * reduces that kind and op (0) or not (-1), before a collective chooses its path.
     * NULL where the backend has no device reduction; without one, or for a pair it
     * refuses, the collectives stage through host memory. */
    int (*reduce)(void *dst, const void *src, size_t n, size_t esize, int kind, int op);
};

/* The reductions' operations and element kinds, in the order of transport.h's
 * enum shoal_red_op and enum shoal_red_kind (the backends know neither). */
enum shoal_dev_red_op {
    SHOAL_DEV_RED_AND,
    SHOAL_DEV_RED_OR,
    SHOAL_DEV_RED_XOR,
    SHOAL_DEV_RED_MAX,
    SHOAL_DEV_RED_MIN,
    SHOAL_DEV_RED_SUM,
    SHOAL_DEV_RED_PROD
};
enum shoal_dev_red_kind {
    SHOAL_DEV_RED_SIGNED,
    SHOAL_DEV_RED_UNSIGNED,
    SHOAL_DEV_RED_REAL,
    SHOAL_DEV_RED_COMPLEX
};

/* Device data this process staged through host memory (a host bounce): operations
 * and bytes, counted where a device path copies through a host buffer on its way
 * elsewhere (the staged collectives, a network put or get of a device buffer). */
struct shoal_dev_bounces {
    uint64_t ops, bytes;
};
extern struct shoal_dev_bounces shoal_dev_bounced;
static inline void shoal_dev_bounce(size_t n)
{
    __atomic_fetch_add(&shoal_dev_bounced.ops, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&shoal_dev_bounced.bytes, n, __ATOMIC_RELAXED);
}

extern const struct shoal_dev_ops shoal_dev_emu;
extern const struct shoal_dev_ops shoal_dev_cuda;
extern const struct shoal_dev_ops shoal_dev_rocm;

/* The backend in use; NULL when none. */
extern const struct shoal_dev_ops *shoal_dev;

/* Selects and starts a backend: name is SHOAL_DEVICE ("" = the first of cuda and rocm
 * that starts; emu only when named, so that a GPU node whose GPU fails to start never
 * runs on emulated memory; when only_loaded, cuda and rocm count only if the program
 * has loaded their library already). 0 on success or when none is wanted or found
 * (shoal_dev stays NULL; err then says why each backend did not start); -1 with the
 * reason in err when the one named cannot start. */
int shoal_dev_select(const char *name, int local_index, int only_loaded, char *err,
                     size_t len);
void shoal_dev_shutdown(void);

/* One-line dispatchers; alloc and free also drop the cache's ranges they cover. */
void *shoal_dev_alloc(size_t n);
int shoal_dev_free(void *p);
static inline int shoal_dev_h2d(void *d, const void *s, size_t n)
{
    return shoal_dev->h2d(d, s, n);
}
static inline int shoal_dev_d2h(void *d, const void *s, size_t n)
{
    return shoal_dev->d2h(d, s, n);
}
static inline int shoal_dev_d2d(void *d, const void *s, size_t n)
{
    return shoal_dev->d2d(d, s, n);
}
static inline int shoal_dev_ipc_get(void *p, struct shoal_dev_ipc *h)
{
    return shoal_dev->ipc_get(p, h);
}
static inline void *shoal_dev_ipc_open(const struct shoal_dev_ipc *h)
{
    return shoal_dev->ipc_open(h);
}
static inline int shoal_dev_ipc_close(void *p)
{
    return shoal_dev->ipc_close(p);
}
static inline int shoal_dev_sync(void)
{
    return shoal_dev->sync();
}
/* Starts an asynchronous copy (ops.copy_async); -1 when the backend has none or refuses
 * it, and the caller then copies synchronously. */
int shoal_dev_copy_async(void *d, const void *s, size_t n);
/* Completes every copy shoal_dev_copy_async started: one backend sync when any is
 * outstanding, nothing otherwise. 0, or -1 when the backend failed. */
int shoal_dev_complete(void);
static inline void shoal_dev_nic(void *p, struct shoal_dev_nic *nic)
{
    shoal_dev->nic(p, nic);
}
static inline int shoal_dev_flush_nic_writes(void)
{
    return shoal_dev->flush_nic_writes();
}
static inline int shoal_dev_stream_write(void *stream, uint32_t *w, uint32_t v)
{
    return shoal_dev->stream_write(stream, w, v);
}
static inline int shoal_dev_stream_wait(void *stream, uint32_t *w, uint32_t v)
{
    return shoal_dev->stream_wait(stream, w, v);
}
static inline void shoal_dev_stream_word_written(uint32_t *w)
{
    if (shoal_dev->stream_word_written)
        shoal_dev->stream_word_written(w);
}
static inline int shoal_dev_stream_copy(void *stream, void *d, const void *s, size_t n)
{
    return shoal_dev->stream_copy(stream, d, s, n);
}
static inline int shoal_dev_stream_write64(void *stream, uint64_t *w, uint64_t v)
{
    return shoal_dev->stream_write64(stream, w, v);
}
static inline int shoal_dev_stream_wait64(void *stream, uint64_t *w, uint64_t v, int eq)
{
    return shoal_dev->stream_wait64(stream, w, v, eq);
}

/* ---- the copy engine ---------------------------------------------------------------
 * One copy between any two memory kinds, host memory being one of them (a plain
 * memcpy), for the device paths of the transports and the collectives alike. */
enum shoal_mem_kind { SHOAL_MEM_HOST, SHOAL_MEM_DEVICE };
/* Complete when it returns: 0, or -1 when the backend failed. */
int shoal_mem_copy(void *d, enum shoal_mem_kind dk, const void *s, enum shoal_mem_kind sk,
                   size_t n);
/* Started on the backend's stream, complete at shoal_dev_complete: 0 when device memory
 * is involved and the backend took it; -1 with nothing done otherwise. */
int shoal_mem_copy_start(void *d, enum shoal_mem_kind dk, const void *s,
                         enum shoal_mem_kind sk, size_t n);

/* ---- memory-type cache -------------------------------------------------------------
 * Whether [p, p + len) is device memory: the first lookup asks the backend, later
 * ones hit a small interval cache (lock-free for readers, a sequence counter guards
 * it). Ranges are dropped when the backend allocates or frees over them through this
 * layer; a copy that fails on a cached range re-asks (shoal_dev_forget). */
int shoal_dev_is_device(const void *p);
/* The same, and for device memory the allocation holding p, [*start, *end) (for host
 * memory the page, which says nothing of how far the buffer extends). */
int shoal_dev_extent(const void *p, uintptr_t *start, uintptr_t *end);
void shoal_dev_forget(const void *p, size_t len);

#endif
