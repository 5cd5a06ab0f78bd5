/* The CUDA backend: the driver API of libcuda.so.1, loaded with dlopen so that the
 * library builds and runs where no CUDA is installed. The few prototypes and constants
 * used are declared here, from the driver API's documented ABI; no CUDA header is
 * needed to build.
 *
 * Each process uses the primary context of device (local index modulo the count).
 * The copies are synchronous: cuMemcpy* from pageable memory may return before the
 * DMA lands, and device-to-device copies are asynchronous, so every copy ends with
 * cuCtxSynchronize: a put's data is in place when the put returns. copy_async is
 * cuMemcpyAsync (unified addressing tells the direction) on a non-blocking stream of
 * this process, completed by sync's cuCtxSynchronize, which waits for every stream. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;
typedef struct CUstream_st *CUstream;
typedef struct {
    char reserved[64];
} CUipcMemHandle;

#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_MEMORYTYPE_DEVICE 2
#define CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 1
#define CU_STREAM_NON_BLOCKING 1

static struct {
    void *lib;
    CUcontext ctx;
    CUdevice dev;
    int ordinal; /* the device's number, which libfabric's FI_HMEM_CUDA takes */
    CUstream stream;
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*PrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*PointerGetAttribute)(void *, int, CUdeviceptr);
    CUresult (*MemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*IpcGetMemHandle)(CUipcMemHandle *, CUdeviceptr);
    CUresult (*IpcOpenMemHandle)(CUdeviceptr *, CUipcMemHandle, unsigned);
    CUresult (*IpcCloseMemHandle)(CUdeviceptr);
    CUresult (*GetErrorString)(CUresult, const char **);
    CUresult (*StreamCreate)(CUstream *, unsigned);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*MemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
} cu;

/* Every thread that calls in needs the context current; cheap when it already is. */
static __thread int ctx_current;
static inline int ready(void)
{
    if (__builtin_expect(!ctx_current, 0)) {
        if (cu.CtxSetCurrent(cu.ctx))
            return -1;
        ctx_current = 1;
    }
    return 0;
}

static const char *errstr(CUresult rc)
{
    const char *s = NULL;
    if (cu.GetErrorString)
        cu.GetErrorString(rc, &s);
    return s ? s : "unknown CUDA error";
}

static int load(char *err, size_t len)
{
    cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu.lib) {
        snprintf(err, len, "cannot load libcuda.so.1 (%s); install the NVIDIA driver",
                 dlerror());
        return -1;
    }
    static const struct {
        const char *name;
        size_t at;
    } syms[] = {
#define SYM(field, name) { name, offsetof(__typeof__(cu), field) }
        SYM(Init, "cuInit"),
        SYM(DeviceGetCount, "cuDeviceGetCount"),
        SYM(DeviceGet, "cuDeviceGet"),
        SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
        SYM(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
        SYM(CtxSetCurrent, "cuCtxSetCurrent"),
        SYM(CtxSynchronize, "cuCtxSynchronize"),
        SYM(MemAlloc, "cuMemAlloc_v2"),
        SYM(MemFree, "cuMemFree_v2"),
        SYM(PointerGetAttribute, "cuPointerGetAttribute"),
        SYM(MemGetAddressRange, "cuMemGetAddressRange_v2"),
        SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
        SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
        SYM(MemcpyDtoD, "cuMemcpyDtoD_v2"),
        SYM(IpcGetMemHandle, "cuIpcGetMemHandle"),
        SYM(IpcOpenMemHandle, "cuIpcOpenMemHandle_v2"),
        SYM(IpcCloseMemHandle, "cuIpcCloseMemHandle"),
        SYM(GetErrorString, "cuGetErrorString"),
        SYM(StreamCreate, "cuStreamCreate"),
        SYM(StreamDestroy, "cuStreamDestroy_v2"),
        SYM(MemcpyAsync, "cuMemcpyAsync"),
#undef SYM
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        void *f = dlsym(cu.lib, syms[i].name);
        if (!f) {
            snprintf(err, len, "libcuda.so.1 lacks %s; update the NVIDIA driver",
                     syms[i].name);
            return -1;
        }
        memcpy((char *)&cu + syms[i].at, &f, sizeof f);
    }
    return 0;
}

static int cuda_init(int local_index, char *err, size_t len)
{
    int n = 0;
    CUresult rc;
    if (load(err, len))
        goto fail;
    if ((rc = cu.Init(0)) || (rc = cu.DeviceGetCount(&n))) {
        snprintf(err, len, "cuInit: %s", errstr(rc));
        goto fail;
    }
    if (n == 0) {
        snprintf(err, len, "the CUDA driver sees no device");
        goto fail;
    }
    if ((rc = cu.DeviceGet(&cu.dev, local_index % n)) ||
        (rc = cu.PrimaryCtxRetain(&cu.ctx, cu.dev))) {
        snprintf(err, len, "cannot open CUDA device %d: %s", local_index % n, errstr(rc));
        goto fail;
    }
    cu.ordinal = local_index % n;
    ctx_current = 0;
    if (ready()) {
        snprintf(err, len, "cuCtxSetCurrent failed");
        goto fail;
    }
    if ((rc = cu.StreamCreate(&cu.stream, CU_STREAM_NON_BLOCKING))) {
        snprintf(err, len, "cuStreamCreate: %s", errstr(rc));
        goto fail;
    }
    return 0;
fail:
    if (cu.lib)
        dlclose(cu.lib);
    memset(&cu, 0, sizeof cu);
    return -1;
}

static void cuda_fini(void)
{
    if (cu.stream)
        cu.StreamDestroy(cu.stream);
    if (cu.ctx)
        cu.PrimaryCtxRelease(cu.dev);
    /* libcuda stays loaded: its own exit handlers may still run. */
    memset(&cu, 0, sizeof cu);
    ctx_current = 0;
}

static void *cuda_alloc(size_t size)
{
    CUdeviceptr p = 0;
    if (ready() || cu.MemAlloc(&p, size))
        return NULL;
    return (void *)(uintptr_t)p;
}

static int cuda_free(void *p)
{
    return ready() || cu.MemFree((CUdeviceptr)(uintptr_t)p) ? -1 : 0;
}

static int cuda_query(const void *p, uintptr_t *base, size_t *len)
{
    unsigned type = 0;
    CUdeviceptr b;
    if (ready() ||
        cu.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                               (CUdeviceptr)(uintptr_t)p) ||
        type != CU_MEMORYTYPE_DEVICE)
        return 0; /* unregistered host memory is an error to the driver */
    if (cu.MemGetAddressRange(&b, len, (CUdeviceptr)(uintptr_t)p))
        return 0;
    *base = (uintptr_t)b;
    return 1;
}

static int done(CUresult rc)
{
    return rc || cu.CtxSynchronize() ? -1 : 0;
}

static int cuda_h2d(void *dst, const void *src, size_t len)
{
    return ready() || done(cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, len));
}

static int cuda_d2h(void *dst, const void *src, size_t len)
{
    return ready() || done(cu.MemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, len));
}

static int cuda_d2d(void *dst, const void *src, size_t len)
{
    return ready() ||
            done(cu.MemcpyDtoD((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                               len));
}

static int cuda_copy_async(void *dst, const void *src, size_t len)
{
    return ready() ||
                    cu.MemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                   len, cu.stream)
            ? -1
            : 0;
}

/* The handle names the allocation; the offset of p inside it travels beside it. */
struct ipc {
    CUipcMemHandle h;
    uint64_t off;
};

static int cuda_ipc_get(void *p, struct shoal_dev_ipc *h)
{
    struct ipc c;
    CUdeviceptr base;
    size_t len;
    if (ready() || cu.MemGetAddressRange(&base, &len, (CUdeviceptr)(uintptr_t)p) ||
        cu.IpcGetMemHandle(&c.h, base))
        return -1;
    c.off = (uintptr_t)p - base;
    memset(h, 0, sizeof *h);
    memcpy(h->bytes, &c, sizeof c);
    return 0;
}

static void *cuda_ipc_open(const struct shoal_dev_ipc *h)
{
    struct ipc c;
    CUdeviceptr p;
    memcpy(&c, h->bytes, sizeof c);
    if (ready() || cu.IpcOpenMemHandle(&p, c.h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
        return NULL;
    return (void *)(uintptr_t)(p + c.off);
}

static int cuda_ipc_close(void *p)
{
    CUdeviceptr base;
    size_t len;
    if (ready() || cu.MemGetAddressRange(&base, &len, (CUdeviceptr)(uintptr_t)p))
        return -1;
    return cu.IpcCloseMemHandle(base) ? -1 : 0;
}

static int cuda_sync(void)
{
    return ready() || cu.CtxSynchronize() ? -1 : 0;
}

/* The NIC reaches GPU memory when the network registers it as CUDA memory of this
 * device (libfabric's FI_HMEM_CUDA: GPUDirect RDMA, or the provider's own copies). */
static void cuda_nic(void *p, struct shoal_dev_nic *nic)
{
    *nic = (struct shoal_dev_nic){ SHOAL_DEV_IFACE_CUDA, cu.ordinal, p };
}

/* Device-initiated communication: the command ring lives in pinned host memory mapped
 * into the device's address space (cuMemHostAlloc, DEVICEMAP), which kernels reach
 * with system-scope atomics and fences. Looked up here, at first use, so that the
 * driver functions the other operations need stay the only ones load() requires. */
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
static struct {
    CUresult (*HostAlloc)(void **, size_t, unsigned);
    CUresult (*HostGetDevicePointer)(CUdeviceptr *, void *, unsigned);
    CUresult (*FreeHost)(void *);
} cuh;

static void *cuda_host_alloc(size_t size, void **dev)
{
    void *p = NULL;
    CUdeviceptr d = 0;
    if (!cuh.HostAlloc) {
        void *a = dlsym(cu.lib, "cuMemHostAlloc");
        void *g = dlsym(cu.lib, "cuMemHostGetDevicePointer_v2");
        void *f = dlsym(cu.lib, "cuMemFreeHost");
        if (!a || !g || !f)
            return NULL;
        memcpy(&cuh.HostGetDevicePointer, &g, sizeof g);
        memcpy(&cuh.FreeHost, &f, sizeof f);
        memcpy(&cuh.HostAlloc, &a, sizeof a);
    }
    if (ready() ||
        cuh.HostAlloc(&p, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP))
        return NULL;
    if (cuh.HostGetDevicePointer(&d, p, 0)) {
        cuh.FreeHost(p);
        return NULL;
    }
    memset(p, 0, size);
    *dev = (void *)(uintptr_t)d;
    return p;
}

static void cuda_host_free(void *p)
{
    if (cuh.FreeHost && !ready())
        cuh.FreeHost(p);
}

/* Kernels use device pointers and IPC mappings as they are. */
static void *cuda_kernel_ptr(void *p)
{
    return p;
}

const struct shoal_dev_ops shoal_dev_cuda = {
    .name = "cuda",
    .init = cuda_init,
    .fini = cuda_fini,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .query = cuda_query,
    .h2d = cuda_h2d,
    .d2h = cuda_d2h,
    .d2d = cuda_d2d,
    .ipc_get = cuda_ipc_get,
    .ipc_open = cuda_ipc_open,
    .ipc_close = cuda_ipc_close,
    .sync = cuda_sync,
    .copy_async = cuda_copy_async,
    .nic = cuda_nic,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .kernel_ptr = cuda_kernel_ptr,
};
