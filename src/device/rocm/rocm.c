/* The ROCm backend: the HIP runtime (libamdhip64.so) loaded with dlopen, so that the
 * library builds and runs where ROCm is not installed. The prototypes and constants
 * used are declared here; no HIP header is needed to build. Not yet run on an AMD GPU
 * (docs/gpu.md): it follows the HIP runtime's documented ABI.
 *
 * The current device is per thread in HIP and belongs to the program: every entry
 * sets this PE's device and restores the caller's on return. Every copy runs on a
 * non-blocking stream of the library's own and waits for that stream alone, never
 * for the program's kernels (hipDeviceSynchronize would). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"

typedef int hipError_t; /* hipSuccess = 0 */
typedef struct {
    char reserved[64];
} hipIpcMemHandle_t;
/* hipPointerAttribute_t: its first field is the memory type in ROCm 5 and 6 alike,
 * but the enumeration was renumbered in ROCm 6 (device: 1 before, 2 since). */
typedef struct {
    int type;
    int device;
    void *device_pointer;
    void *host_pointer;
    int is_managed;
    unsigned allocation_flags;
} hip_ptr_attr;

#define HIP_MEMCPY_DEFAULT 4 /* hipMemcpyDefault: unified addressing tells */
#define HIP_IPC_LAZY_PEER_ACCESS 1
#define HIP_STREAM_NON_BLOCKING 1
#define HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS 6
#define HIP_HOST_MALLOC_PORTABLE 1
#define HIP_HOST_MALLOC_MAPPED 2
#define HIP_STREAM_WAIT_VALUE_GTE 0
#define HIP_STREAM_WAIT_VALUE_EQ 1
typedef struct ihipStream_t *hipStream_t;

static struct {
    void *lib;
    int device_type; /* hipMemoryTypeDevice of the loaded runtime */
    int dev;
    hipStream_t stream;
    hipError_t (*Init)(unsigned);
    hipError_t (*GetDeviceCount)(int *);
    hipError_t (*SetDevice)(int);
    hipError_t (*GetDevice)(int *);
    hipError_t (*RuntimeGetVersion)(int *);
    hipError_t (*Malloc)(void **, size_t);
    hipError_t (*Free)(void *);
    hipError_t (*PointerGetAttributes)(hip_ptr_attr *, const void *);
    hipError_t (*MemGetAddressRange)(void **, size_t *, void *);
    hipError_t (*MemcpyAsync)(void *, const void *, size_t, int, hipStream_t);
    hipError_t (*PointerSetAttribute)(const void *, int, void *);
    hipError_t (*IpcGetMemHandle)(hipIpcMemHandle_t *, void *);
    hipError_t (*IpcOpenMemHandle)(void **, hipIpcMemHandle_t, unsigned);
    hipError_t (*IpcCloseMemHandle)(void *);
    hipError_t (*StreamCreateWithFlags)(hipStream_t *, unsigned);
    hipError_t (*StreamDestroy)(hipStream_t);
    hipError_t (*StreamSynchronize)(hipStream_t);
    hipError_t (*HostMalloc)(void **, size_t, unsigned);
    hipError_t (*HostGetDevicePointer)(void **, void *, unsigned);
    hipError_t (*HostFree)(void *);
    hipError_t (*StreamWriteValue32)(hipStream_t, void *, uint32_t, unsigned);
    hipError_t (*StreamWaitValue32)(hipStream_t, void *, uint32_t, unsigned, uint32_t);
    hipError_t (*StreamWriteValue64)(hipStream_t, void *, uint64_t, unsigned);
    hipError_t (*StreamWaitValue64)(hipStream_t, void *, uint64_t, unsigned, uint64_t);
} hip;

/* Makes this PE's device current for one entry; leave(prev) restores the caller's. */
static inline int enter(int *prev)
{
    if (hip.GetDevice(prev))
        return -1;
    return *prev == hip.dev || !hip.SetDevice(hip.dev) ? 0 : -1;
}
static inline void leave(int prev)
{
    if (prev != hip.dev)
        hip.SetDevice(prev);
}

static int rocm_ordinal(void)
{
    return hip.dev;
}

static int rocm_init(int local_index, char *err, size_t len)
{
    static const char *const names[] = { "libamdhip64.so", "libamdhip64.so.6",
                                         "libamdhip64.so.5" };
    for (size_t i = 0; i < 3 && !hip.lib; i++)
        hip.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!hip.lib) {
        snprintf(err, len, "cannot load libamdhip64.so; install ROCm's HIP runtime");
        return -1;
    }
    static const struct {
        const char *name;
        size_t at;
    } syms[] = {
#define SYM(field, name) { name, offsetof(__typeof__(hip), field) }
        SYM(Init, "hipInit"),
        SYM(GetDeviceCount, "hipGetDeviceCount"),
        SYM(SetDevice, "hipSetDevice"),
        SYM(GetDevice, "hipGetDevice"),
        SYM(RuntimeGetVersion, "hipRuntimeGetVersion"),
        SYM(Malloc, "hipMalloc"),
        SYM(Free, "hipFree"),
        SYM(PointerGetAttributes, "hipPointerGetAttributes"),
        SYM(MemGetAddressRange, "hipMemGetAddressRange"),
        SYM(MemcpyAsync, "hipMemcpyAsync"),
        SYM(PointerSetAttribute, "hipPointerSetAttribute"),
        SYM(IpcGetMemHandle, "hipIpcGetMemHandle"),
        SYM(IpcOpenMemHandle, "hipIpcOpenMemHandle"),
        SYM(IpcCloseMemHandle, "hipIpcCloseMemHandle"),
        SYM(StreamCreateWithFlags, "hipStreamCreateWithFlags"),
        SYM(StreamDestroy, "hipStreamDestroy"),
        SYM(StreamSynchronize, "hipStreamSynchronize"),
        SYM(HostMalloc, "hipHostMalloc"),
        SYM(HostGetDevicePointer, "hipHostGetDevicePointer"),
        SYM(HostFree, "hipHostFree"),
        SYM(StreamWriteValue32, "hipStreamWriteValue32"),
        SYM(StreamWaitValue32, "hipStreamWaitValue32"),
        SYM(StreamWriteValue64, "hipStreamWriteValue64"),
        SYM(StreamWaitValue64, "hipStreamWaitValue64"),
#undef SYM
    };
    int n = 0, version = 0;
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        void *f = dlsym(hip.lib, syms[i].name);
        if (!f) {
            snprintf(err, len, "libamdhip64.so lacks %s; update ROCm", syms[i].name);
            goto fail;
        }
        memcpy((char *)&hip + syms[i].at, &f, sizeof f);
    }
    if (hip.Init(0) || hip.GetDeviceCount(&n) || n == 0) {
        snprintf(err, len, "the HIP runtime sees no device");
        goto fail;
    }
    hip.RuntimeGetVersion(&version);
    hip.device_type = version >= 60000000 ? 2 : 1;
    hip.dev = local_index % n;
    int prev;
    if (enter(&prev) || hip.StreamCreateWithFlags(&hip.stream, HIP_STREAM_NON_BLOCKING)) {
        snprintf(err, len, "cannot start HIP device %d", hip.dev);
        goto fail;
    }
    leave(prev);
    return 0;
fail:
    dlclose(hip.lib);
    memset(&hip, 0, sizeof hip);
    return -1;
}

static void rocm_fini(void)
{
    int prev;
    if (hip.stream && !enter(&prev)) {
        hip.StreamDestroy(hip.stream);
        leave(prev);
    }
    memset(&hip, 0, sizeof hip);
}

/* SYNC_MEMOPS: copies into it (a peer's, the NIC's) complete before later kernels. */
static void *rocm_alloc(size_t size)
{
    void *p = NULL;
    unsigned one = 1;
    int prev;
    if (enter(&prev))
        return NULL;
    if (!hip.Malloc(&p, size) &&
        hip.PointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, p)) {
        hip.Free(p);
        p = NULL;
    }
    leave(prev);
    return p;
}

static int rocm_free(void *p)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.Free(p);
    leave(prev);
    return rc ? -1 : 0;
}

static int rocm_query(const void *p, uintptr_t *base, size_t *len)
{
    hip_ptr_attr a;
    void *b;
    int prev, dev = 0;
    if (enter(&prev))
        return 0;
    if (!hip.PointerGetAttributes(&a, p) && a.type == hip.device_type &&
        !hip.MemGetAddressRange(&b, len, (void *)p)) {
        *base = (uintptr_t)b;
        dev = 1;
    }
    leave(prev);
    return dev;
}

static int copy(void *dst, const void *src, size_t len)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.MemcpyAsync(dst, src, len, HIP_MEMCPY_DEFAULT, hip.stream) ||
            hip.StreamSynchronize(hip.stream);
    leave(prev);
    return rc ? -1 : 0;
}

static int rocm_copy_async(void *dst, const void *src, size_t len)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.MemcpyAsync(dst, src, len, HIP_MEMCPY_DEFAULT, hip.stream);
    leave(prev);
    return rc ? -1 : 0;
}

struct ipc {
    hipIpcMemHandle_t h;
    uint64_t off;
};

static int rocm_ipc_get(void *p, struct shoal_dev_ipc *h)
{
    struct ipc c;
    void *base;
    size_t len;
    int prev;
    if (enter(&prev))
        return -1;
    int bad = hip.MemGetAddressRange(&base, &len, p) || hip.IpcGetMemHandle(&c.h, base);
    leave(prev);
    if (bad)
        return -1;
    c.off = (uintptr_t)p - (uintptr_t)base;
    memset(h, 0, sizeof *h);
    memcpy(h->bytes, &c, sizeof c);
    return 0;
}

static void *rocm_ipc_open(const struct shoal_dev_ipc *h)
{
    struct ipc c;
    void *p;
    int prev;
    memcpy(&c, h->bytes, sizeof c);
    if (enter(&prev))
        return NULL;
    int bad = hip.IpcOpenMemHandle(&p, c.h, HIP_IPC_LAZY_PEER_ACCESS);
    leave(prev);
    return bad ? NULL : (char *)p + c.off;
}

static int rocm_ipc_close(void *p)
{
    void *base;
    size_t len;
    int prev;
    if (enter(&prev))
        return -1;
    int bad = hip.MemGetAddressRange(&base, &len, p) || hip.IpcCloseMemHandle(base);
    leave(prev);
    return bad ? -1 : 0;
}

static int rocm_sync(void)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.StreamSynchronize(hip.stream);
    leave(prev);
    return rc ? -1 : 0;
}

static int rocm_stream_copy(void *stream, void *dst, const void *src, size_t len)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.MemcpyAsync(dst, src, len, HIP_MEMCPY_DEFAULT, (hipStream_t)stream);
    leave(prev);
    return rc ? -1 : 0;
}

static int rocm_stream_write64(void *stream, uint64_t *w, uint64_t v)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.StreamWriteValue64((hipStream_t)stream, w, v, 0);
    leave(prev);
    return rc ? -1 : 0;
}

static int rocm_stream_wait64(void *stream, uint64_t *w, uint64_t v, int eq)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.StreamWaitValue64((hipStream_t)stream, w, v,
                                   eq ? HIP_STREAM_WAIT_VALUE_EQ : HIP_STREAM_WAIT_VALUE_GTE,
                                   ~(uint64_t)0);
    leave(prev);
    return rc ? -1 : 0;
}

/* The NIC reaches GPU memory when the network registers it as ROCm memory
 * (libfabric's FI_HMEM_ROCR, which finds the device from the pointer itself). */
static void rocm_nic(void *p, struct shoal_dev_nic *nic)
{
    *nic = (struct shoal_dev_nic){ SHOAL_DEV_IFACE_ROCR, hip.dev, p };
}

/* HIP has no call to flush the NIC's writes: SYNC_MEMOPS on the heap orders them. */
static int rocm_flush_nic_writes(void)
{
    return 0;
}

/* Pinned host memory mapped for the device: its streams write and wait on it. */
static void *rocm_host_alloc(size_t size, void **dev)
{
    void *p = NULL;
    int prev;
    if (enter(&prev))
        return NULL;
    if (hip.HostMalloc(&p, size, HIP_HOST_MALLOC_PORTABLE | HIP_HOST_MALLOC_MAPPED))
        p = NULL;
    else if (hip.HostGetDevicePointer(dev, p, 0)) {
        hip.HostFree(p);
        p = NULL;
    }
    leave(prev);
    if (p)
        memset(p, 0, size);
    return p;
}

static void rocm_host_free(void *p)
{
    int prev;
    if (!enter(&prev)) {
        hip.HostFree(p);
        leave(prev);
    }
}

static int rocm_stream_write(void *stream, uint32_t *w, uint32_t v)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.StreamWriteValue32((hipStream_t)stream, w, v, 0);
    leave(prev);
    return rc ? -1 : 0;
}

static int rocm_stream_wait(void *stream, uint32_t *w, uint32_t v)
{
    int prev;
    if (enter(&prev))
        return -1;
    int rc = hip.StreamWaitValue32((hipStream_t)stream, w, v, HIP_STREAM_WAIT_VALUE_GTE,
                                   0xffffffffu);
    leave(prev);
    return rc ? -1 : 0;
}

const struct shoal_dev_ops shoal_dev_rocm = {
    .name = "rocm",
    .ordinal = rocm_ordinal,
    .init = rocm_init,
    .fini = rocm_fini,
    .alloc = rocm_alloc,
    .free = rocm_free,
    .query = rocm_query,
    .h2d = copy,
    .d2h = copy,
    .d2d = copy,
    .ipc_get = rocm_ipc_get,
    .ipc_open = rocm_ipc_open,
    .ipc_close = rocm_ipc_close,
    .sync = rocm_sync,
    .copy_async = rocm_copy_async,
    .nic = rocm_nic,
    .flush_nic_writes = rocm_flush_nic_writes,
    .host_alloc = rocm_host_alloc,
    .host_free = rocm_host_free,
    .stream_write = rocm_stream_write,
    .stream_wait = rocm_stream_wait,
    .stream_copy = rocm_stream_copy,
    .stream_write64 = rocm_stream_write64,
    .stream_wait64 = rocm_stream_wait64,
};
