/* The ROCm backend: the HIP runtime (libamdhip64.so) loaded with dlopen, so that the
 * library builds and runs where ROCm is not installed. The prototypes and constants
 * used are declared here; no HIP header is needed to build. Not yet run on an AMD GPU
 * (docs/gpu.md): it follows the HIP runtime's documented ABI.
 *
 * hipMemcpy is synchronous with respect to the host for every direction used here;
 * each copy still ends with hipDeviceSynchronize so that a put is in place when it
 * returns, as with the other backends. */
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

enum { H2D = 1, D2H = 2, D2D = 3 }; /* hipMemcpyKind */
#define HIP_IPC_LAZY_PEER_ACCESS 1

static struct {
    void *lib;
    int device_type; /* hipMemoryTypeDevice of the loaded runtime */
    int dev;
    hipError_t (*Init)(unsigned);
    hipError_t (*GetDeviceCount)(int *);
    hipError_t (*SetDevice)(int);
    hipError_t (*RuntimeGetVersion)(int *);
    hipError_t (*Malloc)(void **, size_t);
    hipError_t (*Free)(void *);
    hipError_t (*PointerGetAttributes)(hip_ptr_attr *, const void *);
    hipError_t (*MemGetAddressRange)(void **, size_t *, void *);
    hipError_t (*Memcpy)(void *, const void *, size_t, int);
    hipError_t (*IpcGetMemHandle)(hipIpcMemHandle_t *, void *);
    hipError_t (*IpcOpenMemHandle)(void **, hipIpcMemHandle_t, unsigned);
    hipError_t (*IpcCloseMemHandle)(void *);
    hipError_t (*DeviceSynchronize)(void);
} hip;

/* The device is per thread in HIP: set it once in every thread that calls in. */
static __thread int dev_set;
static inline int ready(void)
{
    if (__builtin_expect(!dev_set, 0)) {
        if (hip.SetDevice(hip.dev))
            return -1;
        dev_set = 1;
    }
    return 0;
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
        SYM(RuntimeGetVersion, "hipRuntimeGetVersion"),
        SYM(Malloc, "hipMalloc"),
        SYM(Free, "hipFree"),
        SYM(PointerGetAttributes, "hipPointerGetAttributes"),
        SYM(MemGetAddressRange, "hipMemGetAddressRange"),
        SYM(Memcpy, "hipMemcpy"),
        SYM(IpcGetMemHandle, "hipIpcGetMemHandle"),
        SYM(IpcOpenMemHandle, "hipIpcOpenMemHandle"),
        SYM(IpcCloseMemHandle, "hipIpcCloseMemHandle"),
        SYM(DeviceSynchronize, "hipDeviceSynchronize"),
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
    dev_set = 0;
    if (ready()) {
        snprintf(err, len, "hipSetDevice(%d) failed", hip.dev);
        goto fail;
    }
    return 0;
fail:
    dlclose(hip.lib);
    memset(&hip, 0, sizeof hip);
    return -1;
}

static void rocm_fini(void)
{
    memset(&hip, 0, sizeof hip);
    dev_set = 0;
}

static void *rocm_alloc(size_t size)
{
    void *p = NULL;
    return ready() || hip.Malloc(&p, size) ? NULL : p;
}

static int rocm_free(void *p)
{
    return ready() || hip.Free(p) ? -1 : 0;
}

static int rocm_query(const void *p, uintptr_t *base, size_t *len)
{
    hip_ptr_attr a;
    void *b;
    if (ready() || hip.PointerGetAttributes(&a, p) || a.type != hip.device_type ||
        hip.MemGetAddressRange(&b, len, (void *)p))
        return 0;
    *base = (uintptr_t)b;
    return 1;
}

static int copy(void *dst, const void *src, size_t len, int kind)
{
    return ready() || hip.Memcpy(dst, src, len, kind) || hip.DeviceSynchronize() ? -1 : 0;
}

static int rocm_h2d(void *d, const void *s, size_t n)
{
    return copy(d, s, n, H2D);
}
static int rocm_d2h(void *d, const void *s, size_t n)
{
    return copy(d, s, n, D2H);
}
static int rocm_d2d(void *d, const void *s, size_t n)
{
    return copy(d, s, n, D2D);
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
    if (ready() || hip.MemGetAddressRange(&base, &len, p) || hip.IpcGetMemHandle(&c.h, base))
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
    memcpy(&c, h->bytes, sizeof c);
    if (ready() || hip.IpcOpenMemHandle(&p, c.h, HIP_IPC_LAZY_PEER_ACCESS))
        return NULL;
    return (char *)p + c.off;
}

static int rocm_ipc_close(void *p)
{
    void *base;
    size_t len;
    if (ready() || hip.MemGetAddressRange(&base, &len, p))
        return -1;
    return hip.IpcCloseMemHandle(base) ? -1 : 0;
}

static int rocm_sync(void)
{
    return ready() || hip.DeviceSynchronize() ? -1 : 0;
}

/* The NIC reaches GPU memory when the network registers it as ROCm memory
 * (libfabric's FI_HMEM_ROCR, which finds the device from the pointer itself). */
static void rocm_nic(void *p, struct shoal_dev_nic *nic)
{
    *nic = (struct shoal_dev_nic){ SHOAL_DEV_IFACE_ROCR, hip.dev, p };
}

const struct shoal_dev_ops shoal_dev_rocm = {
    .name = "rocm",
    .init = rocm_init,
    .fini = rocm_fini,
    .alloc = rocm_alloc,
    .free = rocm_free,
    .query = rocm_query,
    .h2d = rocm_h2d,
    .d2h = rocm_d2h,
    .d2d = rocm_d2d,
    .ipc_get = rocm_ipc_get,
    .ipc_open = rocm_ipc_open,
    .ipc_close = rocm_ipc_close,
    .sync = rocm_sync,
    .nic = rocm_nic,
};
