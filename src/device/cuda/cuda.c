/* The CUDA backend: the driver API of libcuda.so.1, loaded with dlopen so that the
 * library builds and runs where no CUDA is installed. The few prototypes and constants
 * used are declared here, from the driver API's documented ABI; no CUDA header is
 * needed to build.
 *
 * Each process uses the primary context of device (local index modulo the count),
 * which the CUDA runtime shares with the program. Every entry pushes that context and
 * pops it on return, so the program's current context (another device, its own
 * context, none) is neither used nor changed. Every copy runs on a non-blocking
 * stream of the library's own and waits for that stream alone: a put does not wait
 * for the program's kernels, which a context-wide synchronize would (and a kernel
 * waiting for data that a host thread puts would then never end). copy_async starts
 * its copy on the same stream, completed by sync. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"
#include "env/log.h"

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct {
    char reserved[64];
} CUipcMemHandle;

#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_MEMORYTYPE_DEVICE 2
#define CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 1
#define CU_STREAM_NON_BLOCKING 1
#define CU_POINTER_ATTRIBUTE_SYNC_MEMOPS 6
#define CU_MEMHOSTALLOC_PORTABLE 1
#define CU_MEMHOSTALLOC_DEVICEMAP 2
#define CU_STREAM_WAIT_VALUE_GEQ 0
#define CU_STREAM_WAIT_VALUE_EQ 1
#define CU_STREAM_WRITE_VALUE_DEFAULT 0
#define CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX 0
#define CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER 100

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
    CUresult (*CtxPushCurrent)(CUcontext);
    CUresult (*CtxPopCurrent)(CUcontext *);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*PointerGetAttribute)(void *, int, CUdeviceptr);
    CUresult (*MemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
    CUresult (*PointerSetAttribute)(const void *, int, CUdeviceptr);
    CUresult (*IpcGetMemHandle)(CUipcMemHandle *, CUdeviceptr);
    CUresult (*IpcOpenMemHandle)(CUdeviceptr *, CUipcMemHandle, unsigned);
    CUresult (*IpcCloseMemHandle)(CUdeviceptr);
    CUresult (*GetErrorString)(CUresult, const char **);
    CUresult (*StreamCreate)(CUstream *, unsigned);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*MemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*MemHostAlloc)(void **, size_t, unsigned);
    CUresult (*MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned);
    CUresult (*StreamWriteValue32)(CUstream, CUdeviceptr, uint32_t, unsigned);
    CUresult (*StreamWaitValue32)(CUstream, CUdeviceptr, uint32_t, unsigned);
    CUresult (*StreamWriteValue64)(CUstream, CUdeviceptr, uint64_t, unsigned);
    CUresult (*StreamWaitValue64)(CUstream, CUdeviceptr, uint64_t, unsigned);
    /* Optional (CUDA 11.3 and later): NULL when the driver lacks it. */
    CUresult (*FlushGPUDirectRDMAWrites)(int, int);
    /* Optional: the device of the context the program made current, if any. */
    CUresult (*CtxGetCurrent)(CUcontext *);
    CUresult (*CtxGetDevice)(CUdevice *);
    /* The device reduction's kernels (reduce.cu, embedded at build time where nvcc was
     * found): red[] by reduce_kernel's index, all NULL where they did not load. */
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
    CUmodule red_mod;
    CUfunction red[12];
} cu;

/* Makes the library's context current for one entry; leave() restores the caller's. */
static inline int enter(void)
{
    return cu.CtxPushCurrent(cu.ctx) ? -1 : 0;
}
static inline void leave(void)
{
    CUcontext c;
    cu.CtxPopCurrent(&c);
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
        SYM(CtxPushCurrent, "cuCtxPushCurrent_v2"),
        SYM(CtxPopCurrent, "cuCtxPopCurrent_v2"),
        SYM(StreamSynchronize, "cuStreamSynchronize"),
        SYM(MemAlloc, "cuMemAlloc_v2"),
        SYM(MemFree, "cuMemFree_v2"),
        SYM(PointerGetAttribute, "cuPointerGetAttribute"),
        SYM(MemGetAddressRange, "cuMemGetAddressRange_v2"),
        SYM(PointerSetAttribute, "cuPointerSetAttribute"),
        SYM(IpcGetMemHandle, "cuIpcGetMemHandle"),
        SYM(IpcOpenMemHandle, "cuIpcOpenMemHandle_v2"),
        SYM(IpcCloseMemHandle, "cuIpcCloseMemHandle"),
        SYM(GetErrorString, "cuGetErrorString"),
        SYM(StreamCreate, "cuStreamCreate"),
        SYM(StreamDestroy, "cuStreamDestroy_v2"),
        SYM(MemcpyAsync, "cuMemcpyAsync"),
        SYM(MemHostAlloc, "cuMemHostAlloc"),
        SYM(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
        SYM(StreamWriteValue32, "cuStreamWriteValue32_v2"),
        SYM(StreamWaitValue32, "cuStreamWaitValue32_v2"),
        SYM(StreamWriteValue64, "cuStreamWriteValue64_v2"),
        SYM(StreamWaitValue64, "cuStreamWaitValue64_v2"),
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
    void *flush = dlsym(cu.lib, "cuFlushGPUDirectRDMAWrites");
    memcpy(&cu.FlushGPUDirectRDMAWrites, &flush, sizeof flush);
    void *cur = dlsym(cu.lib, "cuCtxGetCurrent"), *dev = dlsym(cu.lib, "cuCtxGetDevice");
    memcpy(&cu.CtxGetCurrent, &cur, sizeof cur);
    memcpy(&cu.CtxGetDevice, &dev, sizeof dev);
    static const struct {
        const char *name;
        size_t at;
    } mods[] = {
        { "cuModuleLoadData", offsetof(__typeof__(cu), ModuleLoadData) },
        { "cuModuleUnload", offsetof(__typeof__(cu), ModuleUnload) },
        { "cuModuleGetFunction", offsetof(__typeof__(cu), ModuleGetFunction) },
        { "cuLaunchKernel", offsetof(__typeof__(cu), LaunchKernel) },
    };
    for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
        void *f = dlsym(cu.lib, mods[i].name);
        memcpy((char *)&cu + mods[i].at, &f, sizeof f);
    }
    return 0;
}

/* The reduction kernels of reduce.cu, in the order of reduce_kernel's index. */
static const char *const red_names[12] = {
    "shoal_reduce_s1", "shoal_reduce_s2", "shoal_reduce_s4", "shoal_reduce_s8",
    "shoal_reduce_u1", "shoal_reduce_u2", "shoal_reduce_u4", "shoal_reduce_u8",
    "shoal_reduce_f4", "shoal_reduce_f8", "shoal_reduce_c8", "shoal_reduce_c16",
};

#ifdef SHOAL_CUDA_REDUCE_IMAGE
extern const unsigned char shoal_cuda_reduce_image[];
#endif

/* Under the library's context: the reduction kernels, or the reason they are missing
 * logged (reductions on device memory then stage through host memory). */
static void load_reduce(void)
{
#ifdef SHOAL_CUDA_REDUCE_IMAGE
    CUresult rc;
    if (!cu.ModuleLoadData || !cu.ModuleGetFunction || !cu.LaunchKernel) {
        SHOAL_LOG(DEVICE, INFO,
                  "cuda: the driver lacks the module API: reductions on "
                  "device memory are staged through host memory");
        return;
    }
    if ((rc = cu.ModuleLoadData(&cu.red_mod, shoal_cuda_reduce_image))) {
        SHOAL_LOG(DEVICE, INFO,
                  "cuda: the reduction kernels did not load (%s; built for sm_%d and its "
                  "PTX): reductions on device memory are staged through host memory",
                  errstr(rc), SHOAL_CUDA_ARCH);
        cu.red_mod = NULL;
        return;
    }
    for (int i = 0; i < 12; i++)
        if ((rc = cu.ModuleGetFunction(&cu.red[i], cu.red_mod, red_names[i]))) {
            SHOAL_LOG(DEVICE, INFO, "cuda: no kernel %s (%s): reductions are staged",
                      red_names[i], errstr(rc));
            memset(cu.red, 0, sizeof cu.red);
            return;
        }
    SHOAL_LOG(DEVICE, DEBUG, "cuda: reductions on device memory by kernels");
#else
    SHOAL_LOG(DEVICE, INFO,
              "cuda: built without nvcc, so without reduction kernels: "
              "reductions on device memory are staged through host memory");
#endif
}

static int cuda_ordinal(void)
{
    return cu.ordinal;
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
    /* A device the program chose (cudaSetDevice makes its primary context current)
     * wins over the local-rank rule; CUdevice is the device's ordinal. */
    CUcontext current = NULL;
    CUdevice chosen;
    int ordinal = local_index % n;
    if (cu.CtxGetCurrent && cu.CtxGetDevice && !cu.CtxGetCurrent(&current) && current &&
        !cu.CtxGetDevice(&chosen))
        ordinal = (int)chosen;
    if ((rc = cu.DeviceGet(&cu.dev, ordinal)) ||
        (rc = cu.PrimaryCtxRetain(&cu.ctx, cu.dev))) {
        snprintf(err, len, "cannot open CUDA device %d: %s", ordinal, errstr(rc));
        goto fail;
    }
    cu.ordinal = ordinal;
    SHOAL_LOG(DEVICE, DEBUG, "cuda: device %d of %d (%s)", ordinal, n,
              current ? "the program's current device" : "the PE's index on its node");
    if (enter()) {
        snprintf(err, len, "cuCtxPushCurrent failed");
        goto fail;
    }
    rc = cu.StreamCreate(&cu.stream, CU_STREAM_NON_BLOCKING);
    if (!rc)
        load_reduce();
    leave();
    if (rc) {
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
    if (cu.ctx && !enter()) {
        if (cu.stream)
            cu.StreamDestroy(cu.stream);
        if (cu.red_mod)
            cu.ModuleUnload(cu.red_mod);
        leave();
    }
    if (cu.ctx)
        cu.PrimaryCtxRelease(cu.dev);
    /* libcuda stays loaded: its own exit handlers may still run. */
    memset(&cu, 0, sizeof cu);
}

/* Memory that a NIC or a peer's copy engine may write while a kernel reads it: with
 * SYNC_MEMOPS, every copy into it is complete before a later kernel starts, whatever
 * stream or process issued it. */
static void *cuda_alloc(size_t size)
{
    CUdeviceptr p = 0;
    unsigned one = 1;
    if (enter())
        return NULL;
    if (!cu.MemAlloc(&p, size) &&
        cu.PointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p)) {
        cu.MemFree(p);
        p = 0;
    }
    leave();
    return (void *)(uintptr_t)p;
}

static int cuda_free(void *p)
{
    if (enter())
        return -1;
    CUresult rc = cu.MemFree((CUdeviceptr)(uintptr_t)p);
    leave();
    return rc ? -1 : 0;
}

static int cuda_query(const void *p, uintptr_t *base, size_t *len)
{
    unsigned type = 0;
    CUdeviceptr b;
    int dev = 0;
    if (enter())
        return 0;
    /* Unregistered host memory is an error to the driver: host, then. */
    if (!cu.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                (CUdeviceptr)(uintptr_t)p) &&
        type == CU_MEMORYTYPE_DEVICE &&
        !cu.MemGetAddressRange(&b, len, (CUdeviceptr)(uintptr_t)p)) {
        *base = (uintptr_t)b;
        dev = 1;
    }
    leave();
    return dev;
}

/* One copy on the library's stream, waited for: unified addressing tells its
 * direction, and pageable host memory is staged by the driver. */
static int copy(void *dst, const void *src, size_t len)
{
    if (enter())
        return -1;
    CUresult rc = cu.MemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                 len, cu.stream);
    if (!rc)
        rc = cu.StreamSynchronize(cu.stream);
    leave();
    return rc ? -1 : 0;
}

static int cuda_copy_async(void *dst, const void *src, size_t len)
{
    if (enter())
        return -1;
    CUresult rc = cu.MemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                 len, cu.stream);
    leave();
    return rc ? -1 : 0;
}

/* The kernel of reduce.cu for n elements of esize bytes of kind under op, by its index
 * in red_names, or -1 for a pair that has none (long double, which device code lacks;
 * bitwise operations on floating types; min, max on complex ones). */
static int reduce_kernel(size_t esize, int kind, int op)
{
    int lg = esize == 1 ? 0 : esize == 2 ? 1 : esize == 4 ? 2 : esize == 8 ? 3 : -1;
    int bitwise =
            op == SHOAL_DEV_RED_AND || op == SHOAL_DEV_RED_OR || op == SHOAL_DEV_RED_XOR;
    switch (kind) {
    case SHOAL_DEV_RED_SIGNED: return lg < 0 ? -1 : lg;
    case SHOAL_DEV_RED_UNSIGNED: return lg < 0 ? -1 : 4 + lg;
    case SHOAL_DEV_RED_REAL: return bitwise || lg < 2 ? -1 : 8 + lg - 2;
    case SHOAL_DEV_RED_COMPLEX:
        if (op != SHOAL_DEV_RED_SUM && op != SHOAL_DEV_RED_PROD)
            return -1;
        return esize == 8 ? 10 : esize == 16 ? 11 : -1;
    }
    return -1;
}

#define RED_THREADS 256u
#define RED_BLOCKS_MAX 4096u /* a grid-stride loop covers the rest */

/* On the library's stream, after the copies started before it, and waited for. n = 0
 * asks whether the pair has a kernel. */
static int cuda_reduce(void *dst, const void *src, size_t n, size_t esize, int kind, int op)
{
    int k = reduce_kernel(esize, kind, op);
    if (k < 0 || !cu.red[k])
        return -1;
    if (!n)
        return 0;
    size_t want = (n + RED_THREADS - 1) / RED_THREADS;
    unsigned blocks = want < RED_BLOCKS_MAX ? (unsigned)want : RED_BLOCKS_MAX;
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, s = (CUdeviceptr)(uintptr_t)src;
    void *args[] = { &d, &s, &n, &op };
    if (enter())
        return -1;
    CUresult rc = cu.LaunchKernel(cu.red[k], blocks, 1, 1, RED_THREADS, 1, 1, 0, cu.stream,
                                  args, NULL);
    if (!rc)
        rc = cu.StreamSynchronize(cu.stream);
    leave();
    if (rc)
        SHOAL_LOG(DEVICE, INFO, "cuda: %s on %zu elements: %s", red_names[k], n, errstr(rc));
    return rc ? -1 : 0;
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
    if (enter())
        return -1;
    int bad = cu.MemGetAddressRange(&base, &len, (CUdeviceptr)(uintptr_t)p) ||
            cu.IpcGetMemHandle(&c.h, base);
    leave();
    if (bad)
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
    if (enter())
        return NULL;
    CUresult rc = cu.IpcOpenMemHandle(&p, c.h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    leave();
    return rc ? NULL : (void *)(uintptr_t)(p + c.off);
}

static int cuda_ipc_close(void *p)
{
    CUdeviceptr base;
    size_t len;
    if (enter())
        return -1;
    int bad = cu.MemGetAddressRange(&base, &len, (CUdeviceptr)(uintptr_t)p) ||
            cu.IpcCloseMemHandle(base);
    leave();
    return bad ? -1 : 0;
}

static int cuda_sync(void)
{
    if (enter())
        return -1;
    CUresult rc = cu.StreamSynchronize(cu.stream);
    leave();
    return rc ? -1 : 0;
}

static int cuda_stream_copy(void *stream, void *dst, const void *src, size_t len)
{
    if (enter())
        return -1;
    CUresult rc = cu.MemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                 len, (CUstream)stream);
    leave();
    return rc ? -1 : 0;
}

static int cuda_stream_write64(void *stream, uint64_t *w, uint64_t v)
{
    if (enter())
        return -1;
    CUresult rc = cu.StreamWriteValue64((CUstream)stream, (CUdeviceptr)(uintptr_t)w, v,
                                        CU_STREAM_WRITE_VALUE_DEFAULT);
    leave();
    return rc ? -1 : 0;
}

static int cuda_stream_wait64(void *stream, uint64_t *w, uint64_t v, int eq)
{
    if (enter())
        return -1;
    CUresult rc =
            cu.StreamWaitValue64((CUstream)stream, (CUdeviceptr)(uintptr_t)w, v,
                                 eq ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ);
    leave();
    return rc ? -1 : 0;
}

/* The NIC reaches GPU memory when the network registers it as CUDA memory of this
 * device (libfabric's FI_HMEM_CUDA: GPUDirect RDMA, or the provider's own copies). */
static void cuda_nic(void *p, struct shoal_dev_nic *nic)
{
    *nic = (struct shoal_dev_nic){ SHOAL_DEV_IFACE_CUDA, cu.ordinal, p };
}

static int cuda_flush_nic_writes(void)
{
    if (!cu.FlushGPUDirectRDMAWrites)
        return 0;
    if (enter())
        return -1;
    CUresult rc =
            cu.FlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                        CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
    leave();
    return rc ? -1 : 0;
}

static int cuda_stream_write(void *stream, uint32_t *w, uint32_t v)
{
    if (enter())
        return -1;
    CUresult rc = cu.StreamWriteValue32((CUstream)stream, (CUdeviceptr)(uintptr_t)w, v,
                                        CU_STREAM_WRITE_VALUE_DEFAULT);
    leave();
    return rc ? -1 : 0;
}

static int cuda_stream_wait(void *stream, uint32_t *w, uint32_t v)
{
    if (enter())
        return -1;
    CUresult rc = cu.StreamWaitValue32((CUstream)stream, (CUdeviceptr)(uintptr_t)w, v,
                                       CU_STREAM_WAIT_VALUE_GEQ);
    leave();
    return rc ? -1 : 0;
}

/* Device-initiated communication: the command ring lives in pinned host memory mapped
 * into the device's address space (cuMemHostAlloc, DEVICEMAP), which kernels reach
 * with system-scope atomics and fences. cuMemFreeHost is looked up at first use, so
 * that load() requires only what the other operations need. */
static CUresult (*free_host)(void *);

static void *cuda_host_alloc(size_t size, void **dev)
{
    void *p = NULL;
    CUdeviceptr d = 0;
    if (!free_host) {
        void *f = dlsym(cu.lib, "cuMemFreeHost");
        if (!f)
            return NULL;
        memcpy(&free_host, &f, sizeof f);
    }
    if (enter())
        return NULL;
    if (cu.MemHostAlloc(&p, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP))
        p = NULL;
    else if (cu.MemHostGetDevicePointer(&d, p, 0)) {
        free_host(p);
        p = NULL;
    }
    leave();
    if (p) {
        memset(p, 0, size);
        *dev = (void *)(uintptr_t)d;
    }
    return p;
}

static void cuda_host_free(void *p)
{
    if (free_host && !enter()) {
        free_host(p);
        leave();
    }
}

/* Kernels use device pointers and IPC mappings as they are. */
static void *cuda_kernel_ptr(void *p)
{
    return p;
}

const struct shoal_dev_ops shoal_dev_cuda = {
    .name = "cuda",
    .ordinal = cuda_ordinal,
    .init = cuda_init,
    .fini = cuda_fini,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .query = cuda_query,
    .h2d = copy,
    .d2h = copy,
    .d2d = copy,
    .ipc_get = cuda_ipc_get,
    .ipc_open = cuda_ipc_open,
    .ipc_close = cuda_ipc_close,
    .sync = cuda_sync,
    .copy_async = cuda_copy_async,
    .nic = cuda_nic,
    .flush_nic_writes = cuda_flush_nic_writes,
    .stream_write = cuda_stream_write,
    .stream_wait = cuda_stream_wait,
    .stream_copy = cuda_stream_copy,
    .stream_write64 = cuda_stream_write64,
    .stream_wait64 = cuda_stream_wait64,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .kernel_ptr = cuda_kernel_ptr,
    .reduce = cuda_reduce,
};
