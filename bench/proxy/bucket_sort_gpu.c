/* The bucket sort's device steps on a GPU: the kernels of bucket_sort_cuda.cu, loaded
 * from a file at run time (a fatbin for CUDA, a code object for HIP) and launched
 * through the driver's module API, which libcuda.so.1 (CUDA) and libamdhip64.so (HIP)
 * export alike. Both are opened with dlopen, so this builds with no GPU toolkit and
 * neither libshoal nor the benchmark links a GPU runtime; only the kernels file needs
 * nvcc (or hipcc).
 *
 * The device is the one Shoal's cuda and rocm backends take: (index of the PE on its
 * node) mod (devices present), through its primary context on CUDA, so the kernels
 * reach Shoal's device heap. Streams are non-blocking; blocking copies run on a pool
 * of copy streams, so that several threads may copy at once without waiting for the
 * kernels of other streams (as the legacy default stream would). */
#include "bucket_sort.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef BUCKET_SORT_SHOAL_DEVICE
#include <shmemx_device.h>
#endif

/* Declared here from the documented ABIs; no GPU header is needed. Device pointers
 * are CUdeviceptr (an unsigned 64-bit integer) for CUDA and void * for HIP: both are
 * passed alike, in one integer register, on the 64-bit ABIs this runs on. */
typedef int gpu_rc; /* CUresult, hipError_t: 0 is success */
typedef unsigned long long dptr;
typedef unsigned long long u64; /* the kernels' integer parameters */
typedef void *gpu_stream;
typedef void *gpu_module;
typedef void *gpu_func;

#define STREAM_NON_BLOCKING 1 /* CU_STREAM_NON_BLOCKING, hipStreamNonBlocking */
#define THREADS 256           /* BS_THREADS of the kernels */
#define TILE (THREADS * 8)    /* elements per block and tile in bs_scatter */
#define COPY_STREAMS 16

static struct {
    int hip;
    void *lib;
    int ordinal, dev;
    int opened; /* the device is ours to call on (and to clean up) */
    void *ctx;  /* CUDA's primary context */
    gpu_module mod;
    gpu_func count, starts, scatter, keys, bitonic, gather;
    gpu_func di_bind, di_exchange; /* GA_DI's (CUDA kernels only) */
    dptr di_peer;                  /* the device API's peer table, once bound */
    gpu_stream stream[BS_STREAMS];
    dptr dcounts[BS_STREAMS], dfill[BS_STREAMS];
    uint64_t *want[BS_STREAMS]; /* where sync puts a queued bucketing's counts */
    dptr skeys[BS_STREAMS], sidx[BS_STREAMS], sout[BS_STREAMS]; /* sort scratch */
    size_t spairs[BS_STREAMS], sbytes[BS_STREAMS];
    gpu_stream copy[COPY_STREAMS];
    int copy_busy[COPY_STREAMS];
    char what[200];

    gpu_rc (*Init)(unsigned);
    gpu_rc (*DeviceGetCount)(int *);
    gpu_rc (*DeviceGet)(int *, int);
    gpu_rc (*DeviceGetName)(char *, int, int);
    gpu_rc (*PrimaryCtxRetain)(void **, int); /* CUDA */
    gpu_rc (*PrimaryCtxRelease)(int);         /* CUDA */
    gpu_rc (*CtxSetCurrent)(void *);          /* CUDA */
    gpu_rc (*SetDevice)(int);                 /* HIP */
    gpu_rc (*ModuleLoadData)(gpu_module *, const void *);
    gpu_rc (*ModuleUnload)(gpu_module);
    gpu_rc (*ModuleGetFunction)(gpu_func *, gpu_module, const char *);
    gpu_rc (*LaunchKernel)(gpu_func, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, gpu_stream, void **, void **);
    gpu_rc (*MemAlloc)(dptr *, size_t);
    gpu_rc (*MemFree)(dptr);
    gpu_rc (*HtoDAsync)(dptr, const void *, size_t, gpu_stream);
    gpu_rc (*DtoHAsync)(void *, dptr, size_t, gpu_stream);
    gpu_rc (*DtoDAsync)(dptr, dptr, size_t, gpu_stream);
    gpu_rc (*MemsetD8Async)(dptr, unsigned char, size_t, gpu_stream);
    gpu_rc (*StreamCreate)(gpu_stream *, unsigned);
    gpu_rc (*StreamSynchronize)(gpu_stream);
    gpu_rc (*StreamDestroy)(gpu_stream);
    gpu_rc (*CuErrorString)(gpu_rc, const char **); /* CUDA */
    const char *(*HipErrorString)(gpu_rc);          /* HIP */
} g;

static struct bs_geom geom;
static pthread_mutex_t copy_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t copy_cv = PTHREAD_COND_INITIALIZER;

static const char *api(void)
{
    return g.hip ? "HIP" : "CUDA";
}

static int fail(const char *what, gpu_rc rc)
{
    const char *s = NULL;
    if (g.hip && g.HipErrorString)
        s = g.HipErrorString(rc);
    else if (!g.hip && g.CuErrorString)
        g.CuErrorString(rc, &s);
    fprintf(stderr, "bucket_sort: PE %d: %s: %s (%s error %d)\n", geom.me, what,
            s ? s : "unknown error", api(), rc);
    return -1;
}

/* Every thread that calls in needs the device (HIP) or the context (CUDA) current. */
static __thread int bound;
static int bind(void)
{
    if (bound)
        return 0;
    gpu_rc rc = g.hip ? g.SetDevice(g.ordinal) : g.CtxSetCurrent(g.ctx);
    if (rc)
        return fail(g.hip ? "hipSetDevice" : "cuCtxSetCurrent", rc);
    bound = 1;
    return 0;
}

static int load(void)
{
    const char *lib = g.hip ? "libamdhip64.so" : "libcuda.so.1";
    g.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!g.lib) {
        fprintf(stderr, "bucket_sort: PE %d: cannot load %s (%s); install the %s\n", geom.me,
                lib, dlerror(), g.hip ? "ROCm HIP runtime" : "NVIDIA driver");
        return -1;
    }
    static const struct {
        size_t at;
        const char *cuda, *hip;
    } syms[] = {
#define SYM(field, cuda, hip) { offsetof(__typeof__(g), field), cuda, hip }
        SYM(Init, "cuInit", "hipInit"),
        SYM(DeviceGetCount, "cuDeviceGetCount", "hipGetDeviceCount"),
        SYM(DeviceGet, "cuDeviceGet", "hipDeviceGet"),
        SYM(DeviceGetName, "cuDeviceGetName", "hipDeviceGetName"),
        SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
        SYM(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", NULL),
        SYM(CtxSetCurrent, "cuCtxSetCurrent", NULL),
        SYM(SetDevice, NULL, "hipSetDevice"),
        SYM(ModuleLoadData, "cuModuleLoadData", "hipModuleLoadData"),
        SYM(ModuleUnload, "cuModuleUnload", "hipModuleUnload"),
        SYM(ModuleGetFunction, "cuModuleGetFunction", "hipModuleGetFunction"),
        SYM(LaunchKernel, "cuLaunchKernel", "hipModuleLaunchKernel"),
        SYM(MemAlloc, "cuMemAlloc_v2", "hipMalloc"),
        SYM(MemFree, "cuMemFree_v2", "hipFree"),
        SYM(HtoDAsync, "cuMemcpyHtoDAsync_v2", "hipMemcpyHtoDAsync"),
        SYM(DtoHAsync, "cuMemcpyDtoHAsync_v2", "hipMemcpyDtoHAsync"),
        SYM(DtoDAsync, "cuMemcpyDtoDAsync_v2", "hipMemcpyDtoDAsync"),
        SYM(MemsetD8Async, "cuMemsetD8Async", "hipMemsetD8Async"),
        SYM(StreamCreate, "cuStreamCreate", "hipStreamCreateWithFlags"),
        SYM(StreamSynchronize, "cuStreamSynchronize", "hipStreamSynchronize"),
        SYM(StreamDestroy, "cuStreamDestroy_v2", "hipStreamDestroy"),
        SYM(CuErrorString, "cuGetErrorString", NULL),
        SYM(HipErrorString, NULL, "hipGetErrorString"),
#undef SYM
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        const char *name = g.hip ? syms[i].hip : syms[i].cuda;
        if (!name)
            continue;
        void *f = dlsym(g.lib, name);
        if (!f) {
            fprintf(stderr, "bucket_sort: PE %d: %s lacks %s; update it\n", geom.me, lib,
                    name);
            return -1;
        }
        memcpy((char *)&g + syms[i].at, &f, sizeof f);
    }
    return 0;
}

/* The kernels file: as given, or beside the executable. */
static int load_module(const char *file)
{
    char path[PATH_MAX];
    const char *base = g.hip ? "bucket_sort_hip.hsaco" : "bucket_sort_cuda.fatbin";
    if (!file) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0)
            n = 0;
        path[n] = 0;
        char *slash = strrchr(path, '/');
        size_t dir = slash ? (size_t)(slash - path + 1) : 0;
        snprintf(path + dir, sizeof path - dir, "%s", base);
        file = path;
    }
    FILE *f = fopen(file, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    char *image = size > 0 ? malloc((size_t)size) : NULL;
    int ok = image && fseek(f, 0, SEEK_SET) == 0 &&
            fread(image, 1, (size_t)size, f) == (size_t)size;
    if (f)
        fclose(f);
    if (!ok) {
        fprintf(stderr,
                "bucket_sort: PE %d: cannot read the %s kernels %s; build them (%s found at "
                "configure time) or name them with -k\n",
                geom.me, api(), file, g.hip ? "hipcc" : "nvcc");
        free(image);
        return -1;
    }
    gpu_rc rc = g.ModuleLoadData(&g.mod, image);
    free(image);
    if (rc)
        return fail(file, rc);
    static const struct {
        size_t at;
        const char *name;
    } fns[] = {
#define FN(field) { offsetof(__typeof__(g), field), "bs_" #field }
        FN(count), FN(starts), FN(scatter), FN(keys), FN(bitonic), FN(gather),
#undef FN
    };
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
        gpu_func fn;
        if ((rc = g.ModuleGetFunction(&fn, g.mod, fns[i].name)))
            return fail(fns[i].name, rc);
        memcpy((char *)&g + fns[i].at, &fn, sizeof fn);
    }
    /* GA_DI's kernels, in the CUDA kernels only: looked for when the row runs. */
    if (g.ModuleGetFunction(&g.di_bind, g.mod, "bs_di_bind") ||
        g.ModuleGetFunction(&g.di_exchange, g.mod, "bs_di_exchange"))
        g.di_bind = g.di_exchange = NULL;
    return 0;
}

static void gpu_fini(void)
{
    if (g.opened && bind() == 0) {
        for (int s = 0; s < BS_STREAMS; s++) {
            if (g.stream[s])
                g.StreamSynchronize(g.stream[s]);
            dptr p[] = { g.dcounts[s], g.dfill[s], g.skeys[s], g.sidx[s], g.sout[s] };
            for (size_t i = 0; i < sizeof p / sizeof *p; i++)
                if (p[i])
                    g.MemFree(p[i]);
            if (g.stream[s])
                g.StreamDestroy(g.stream[s]);
        }
        for (int i = 0; i < COPY_STREAMS; i++)
            if (g.copy[i])
                g.StreamDestroy(g.copy[i]);
        if (g.di_peer)
            g.MemFree(g.di_peer);
        if (g.mod)
            g.ModuleUnload(g.mod);
        if (g.ctx)
            g.PrimaryCtxRelease(g.dev);
    }
    /* The library stays loaded: Shoal's device backend uses it too. */
    int hip = g.hip;
    memset(&g, 0, sizeof g);
    g.hip = hip;
    bound = 0;
}

static int gpu_init(const struct bs_geom *geo, const char *file)
{
    int n = 0;
    gpu_rc rc;
    geom = *geo;
    if (geom.npes > BS_MAX_PES) {
        fprintf(stderr, "bucket_sort: PE %d: the GPU kernels handle %d PEs at most, not %d\n",
                geom.me, BS_MAX_PES, geom.npes);
        return -1;
    }
    if (load())
        goto out;
    if ((rc = g.Init(0)) || (rc = g.DeviceGetCount(&n))) {
        fail(g.hip ? "hipInit" : "cuInit", rc);
        goto out;
    }
    if (n < 1) {
        fprintf(stderr, "bucket_sort: PE %d: the %s driver sees no device\n", geom.me, api());
        goto out;
    }
    g.ordinal = geom.local % n;
    if ((rc = g.DeviceGet(&g.dev, g.ordinal))) {
        fail("device", rc);
        goto out;
    }
    if (!g.hip && (rc = g.PrimaryCtxRetain(&g.ctx, g.dev))) {
        fail("cuDevicePrimaryCtxRetain", rc);
        goto out;
    }
    g.opened = 1;
    if (bind() || load_module(file))
        goto out;
    for (int s = 0; s < BS_STREAMS; s++) {
        size_t bytes = (size_t)geom.npes * sizeof(uint64_t);
        if ((rc = g.StreamCreate(&g.stream[s], STREAM_NON_BLOCKING)) ||
            (rc = g.MemAlloc(&g.dcounts[s], bytes)) ||
            (rc = g.MemAlloc(&g.dfill[s], bytes))) {
            fail("stream setup", rc);
            goto out;
        }
    }
    char name[128] = "";
    g.DeviceGetName(name, sizeof name, g.dev);
    snprintf(g.what, sizeof g.what, "%s kernels on %s (device %d)", api(), name, g.ordinal);
    return 0;
out:
    gpu_fini();
    return -1;
}

static int cuda_init(const struct bs_geom *geo, const char *file)
{
    g.hip = 0;
    return gpu_init(geo, file);
}

static int hip_init(const struct bs_geom *geo, const char *file)
{
    g.hip = 1;
    return gpu_init(geo, file);
}

static const char *gpu_describe(void)
{
    return g.what;
}

static void *gpu_alloc(size_t bytes)
{
    dptr p = 0;
    if (bind() || g.MemAlloc(&p, bytes ? bytes : 1))
        return NULL;
    return (void *)(uintptr_t)p;
}

static void gpu_free(void *p)
{
    if (p && bind() == 0)
        g.MemFree((dptr)(uintptr_t)p);
}

/* A blocking copy on a copy stream of the pool. */
static int copy(int to_device, void *dst, const void *src, size_t bytes)
{
    if (!bytes)
        return 0;
    if (bind())
        return -1;
    int i;
    gpu_rc rc = 0;
    pthread_mutex_lock(&copy_mu);
    for (;;) {
        for (i = 0; i < COPY_STREAMS && g.copy_busy[i]; i++)
            ;
        if (i < COPY_STREAMS)
            break;
        pthread_cond_wait(&copy_cv, &copy_mu);
    }
    g.copy_busy[i] = 1;
    if (!g.copy[i])
        rc = g.StreamCreate(&g.copy[i], STREAM_NON_BLOCKING);
    pthread_mutex_unlock(&copy_mu);
    if (!rc)
        rc = to_device ? g.HtoDAsync((dptr)(uintptr_t)dst, src, bytes, g.copy[i])
                       : g.DtoHAsync(dst, (dptr)(uintptr_t)src, bytes, g.copy[i]);
    if (!rc)
        rc = g.StreamSynchronize(g.copy[i]);
    pthread_mutex_lock(&copy_mu);
    g.copy_busy[i] = 0;
    pthread_cond_signal(&copy_cv);
    pthread_mutex_unlock(&copy_mu);
    return rc ? fail(to_device ? "copy to the device" : "copy from the device", rc) : 0;
}

static int gpu_h2d(void *dst, const void *src, size_t bytes)
{
    return copy(1, dst, src, bytes);
}

static int gpu_d2h(void *dst, const void *src, size_t bytes)
{
    return copy(0, dst, src, bytes);
}

static int launch(gpu_func f, const char *name, size_t blocks, unsigned shared, int s,
                  void **args)
{
    gpu_rc rc = g.LaunchKernel(f, (unsigned)blocks, 1, 1, THREADS, 1, 1, shared, g.stream[s],
                               args, NULL);
    return rc ? fail(name, rc) : 0;
}

static size_t blocks_for(size_t items, size_t per_block, size_t most)
{
    size_t b = (items + per_block - 1) / per_block;
    return b < most ? b : most;
}

static int gpu_bucket(int s, const void *table, size_t n, void *out, uint64_t *counts)
{
    if (bind())
        return -1;
    if (g.want[s]) {
        fprintf(stderr,
                "bucket_sort: PE %d: two bucketings queued on stream %d without a sync\n",
                geom.me, s);
        return -1;
    }
    int npes = geom.npes, eb = geom.eb, word = geom.word;
    gpu_rc rc =
            g.MemsetD8Async(g.dcounts[s], 0, (size_t)npes * sizeof(uint64_t), g.stream[s]);
    if (rc)
        return fail("clearing the counts", rc);
    if (n) {
        u64 nn = n;
        dptr tab = (dptr)(uintptr_t)table, o = (dptr)(uintptr_t)out;
        size_t blocks = blocks_for(n, TILE, 4096);
        void *count_args[] = { &tab, &nn, &eb, &word, &npes, &g.dcounts[s] };
        void *starts_args[] = { &g.dcounts[s], &npes, &g.dfill[s] };
        void *scatter_args[] = { &tab, &nn, &eb, &word, &npes, &g.dfill[s], &o };
        if (launch(g.count, "bs_count", blocks, (unsigned)npes * 4, s, count_args) ||
            launch(g.starts, "bs_starts", 1, 0, s, starts_args) ||
            launch(g.scatter, "bs_scatter", blocks, (unsigned)npes * 12, s, scatter_args))
            return -1;
    }
    g.want[s] = counts;
    return 0;
}

/* The sort's scratch on stream s, grown to hold p pairs and bytes of elements. */
static int scratch(int s, size_t p, size_t bytes)
{
    if (p <= g.spairs[s] && bytes <= g.sbytes[s])
        return 0;
    gpu_rc rc = g.StreamSynchronize(g.stream[s]); /* nothing may still use the old */
    dptr *bufs[] = { &g.skeys[s], &g.sidx[s], &g.sout[s] };
    for (int i = 0; i < 3; i++)
        if (*bufs[i]) {
            g.MemFree(*bufs[i]);
            *bufs[i] = 0;
        }
    g.spairs[s] = g.sbytes[s] = 0;
    if (rc || (rc = g.MemAlloc(&g.skeys[s], p * 8)) || (rc = g.MemAlloc(&g.sidx[s], p * 4)) ||
        (rc = g.MemAlloc(&g.sout[s], bytes)))
        return fail("sort scratch", rc);
    g.spairs[s] = p;
    g.sbytes[s] = bytes;
    return 0;
}

static int gpu_sort(int s, void *buf, size_t n)
{
    if (n < 2)
        return 0;
    if (bind())
        return -1;
    if (n >= UINT32_MAX) {
        fprintf(stderr, "bucket_sort: PE %d: the GPU sort takes fewer than 2^32 elements\n",
                geom.me);
        return -1;
    }
    size_t p = 1;
    while (p < n)
        p <<= 1;
    int eb = geom.eb, word = geom.word;
    if (scratch(s, p, n * (size_t)eb))
        return -1;
    u64 nn = n, pp = p;
    dptr b = (dptr)(uintptr_t)buf;
    size_t blocks = blocks_for(p, THREADS, SIZE_MAX);
    void *keys_args[] = { &b, &nn, &eb, &word, &pp, &g.skeys[s], &g.sidx[s] };
    if (launch(g.keys, "bs_keys", blocks, 0, s, keys_args))
        return -1;
    for (u64 k = 2; k <= pp; k <<= 1)
        for (u64 j = k >> 1; j > 0; j >>= 1) {
            void *args[] = { &g.skeys[s], &g.sidx[s], &pp, &j, &k };
            if (launch(g.bitonic, "bs_bitonic", blocks, 0, s, args))
                return -1;
        }
    void *gather_args[] = { &b, &g.sidx[s], &nn, &eb, &g.sout[s] };
    if (launch(g.gather, "bs_gather", blocks_for(n, THREADS, SIZE_MAX), 0, s, gather_args))
        return -1;
    gpu_rc rc = g.DtoDAsync(b, g.sout[s], n * (size_t)eb, g.stream[s]);
    return rc ? fail("copy of the sorted elements", rc) : 0;
}

static const char *cuda_no_exchange(void)
{
#ifdef BUCKET_SORT_SHOAL_DEVICE
    return g.di_exchange ? NULL : "the CUDA kernels file has no bs_di_exchange; rebuild it";
#else
    return "the CUDA kernels need Shoal's device API";
#endif
}

static const char *hip_no_exchange(void)
{
    return "Shoal's rocm backend offers no device-initiated communication";
}

#ifdef BUCKET_SORT_SHOAL_DEVICE
static int gpu_exchange(int s, const struct bs_exch *x)
{
    if (bind())
        return -1;
    gpu_rc rc;
    if (!g.di_peer) { /* this PE's device API state, copied into the module once */
        dptr st = (dptr)(uintptr_t)shmemx_device_state();
        if ((rc = g.MemAlloc(&g.di_peer, (size_t)geom.npes * sizeof(char *))))
            return fail("the device API's peer table", rc);
        void *bind_args[] = { &st, &g.di_peer };
        if (launch(g.di_bind, "bs_di_bind", 1, 0, s, bind_args))
            return -1;
    }
    dptr buck = (dptr)(uintptr_t)x->buck, recv = (dptr)(uintptr_t)x->recv,
         fill = (dptr)(uintptr_t)x->fill, arrived = (dptr)(uintptr_t)x->arrived,
         senders = (dptr)(uintptr_t)x->senders;
    u64 chunk = x->chunk, cap = x->cap;
    int eb = geom.eb;
    void *args[] = {
        &buck, &g.dcounts[s], &eb, &chunk, &recv, &cap, &fill, &arrived, &senders
    };
    return launch(g.di_exchange, "bs_di_exchange", blocks_for((size_t)geom.npes, 1, 128), 0,
                  s, args);
}
#endif

static int gpu_sync(int s)
{
    if (bind())
        return -1;
    gpu_rc rc = g.StreamSynchronize(g.stream[s]);
    if (rc)
        return fail("stream synchronize", rc);
    if (g.want[s]) {
        /* Pageable host memory: the copy is complete when the call returns. */
        rc = g.DtoHAsync(g.want[s], g.dcounts[s], (size_t)geom.npes * sizeof(uint64_t),
                         g.stream[s]);
        if (!rc)
            rc = g.StreamSynchronize(g.stream[s]);
        g.want[s] = NULL;
        if (rc)
            return fail("copy of the counts", rc);
    }
    return 0;
}

const struct bs_kernels bs_cuda_kernels = {
    .name = "cuda",
    .describe = gpu_describe,
    .init = cuda_init,
    .fini = gpu_fini,
    .alloc = gpu_alloc,
    .free = gpu_free,
    .h2d = gpu_h2d,
    .d2h = gpu_d2h,
    .bucket = gpu_bucket,
    .sort = gpu_sort,
#ifdef BUCKET_SORT_SHOAL_DEVICE
    .exchange = gpu_exchange,
#endif
    .no_exchange = cuda_no_exchange,
    .sync = gpu_sync,
};

const struct bs_kernels bs_hip_kernels = {
    .name = "hip",
    .describe = gpu_describe,
    .init = hip_init,
    .fini = gpu_fini,
    .alloc = gpu_alloc,
    .free = gpu_free,
    .h2d = gpu_h2d,
    .d2h = gpu_d2h,
    .bucket = gpu_bucket,
    .sort = gpu_sort,
    .no_exchange = hip_no_exchange,
    .sync = gpu_sync,
};
