/* A stand-in for libcuda.so.1 that runs the bucket sort's CUDA kernels on the CPU, so
 * that the kernels' logic and bucket_sort_gpu.c's use of the driver API (module,
 * launches, argument lists, copies, streams) are tested where there is no GPU: the
 * bench.bucket_sort_cuda_on_cpu tests put it first on LD_LIBRARY_PATH and run
 * `bucket_sort -K cuda`.
 *
 * bucket_sort_cuda.cu is compiled here as C++. The threads of a block are coroutines
 * (ucontext) that run in turn up to each __syncthreads, so shared memory and atomics
 * behave as on a GPU for code that synchronizes where it must; blocks run one after
 * the other, each launch to completion before it returns (a stream is then trivially
 * in order). Device memory is host memory, tracked so that a copy or memset given a
 * host pointer as a device one fails as the driver would. Only what bucket_sort_gpu.c
 * calls is here. */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <ucontext.h>

typedef unsigned long long u64;

/* ---- what the kernels see ----------------------------------------------------------- */

struct emu_dim3 {
    unsigned x, y, z;
};
static emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __shared__

static void __syncthreads();

static unsigned int atomicAdd(unsigned int *p, unsigned int v)
{
    unsigned int old = *p; /* coroutines: nothing runs in between */
    *p = old + v;
    return old;
}

static u64 atomicAdd(u64 *p, u64 v)
{
    u64 old = *p;
    *p = old + v;
    return old;
}

static u64 __umul64hi(u64 a, u64 b)
{
    return (u64)(((unsigned __int128)a * b) >> 64);
}

#include "bucket_sort.h"
#include "bucket_sort_cuda.cu"

/* The dynamic shared memory the kernels declare (extern, C linkage in their bodies). */
extern "C" {
unsigned int bs_count_shared[BS_MAX_PES];
u64 bs_scatter_shared[2 * BS_MAX_PES];
}

/* ---- the threads of a block ------------------------------------------------------- */

#define MAX_THREADS 1024
#define STACK (64 * 1024)

static ucontext_t scheduler, thread_ctx[MAX_THREADS];
static char *stacks[MAX_THREADS];
static bool done[MAX_THREADS];
static unsigned current;
static void (*body)(void **);
static void **body_args;

static void __syncthreads()
{
    swapcontext(&thread_ctx[current], &scheduler);
}

static void thread_main()
{
    body(body_args);
    done[current] = true; /* then back to the scheduler (uc_link) */
}

/* getcontext "returns twice" to the compiler, though nothing here resumes what it saves
 * (makecontext replaces it): alone in a frame without locals, it clobbers none. */
static ucontext_t *to_init;
__attribute__((noinline)) static void init_context()
{
    getcontext(to_init);
}

static void run_block()
{
    unsigned n = blockDim.x;
    for (unsigned t = 0; t < n; t++) {
        if (!stacks[t])
            stacks[t] = static_cast<char *>(malloc(STACK));
        to_init = &thread_ctx[t];
        init_context();
        thread_ctx[t].uc_stack.ss_sp = stacks[t];
        thread_ctx[t].uc_stack.ss_size = STACK;
        thread_ctx[t].uc_link = &scheduler;
        makecontext(&thread_ctx[t], thread_main, 0);
        done[t] = false;
    }
    for (bool running = true; running;) { /* a round: every thread to its next barrier */
        running = false;
        for (unsigned t = 0; t < n; t++) {
            if (done[t])
                continue;
            current = t;
            threadIdx = emu_dim3{ t, 0, 0 };
            swapcontext(&scheduler, &thread_ctx[t]);
            running = true;
        }
    }
}

/* ---- the kernels by name, their arguments unpacked -------------------------------- */

template <typename T> static T arg(void **a, int i)
{
    T v;
    memcpy(&v, a[i], sizeof v);
    return v;
}

static void run_count(void **a)
{
    bs_count(arg<const unsigned char *>(a, 0), arg<u64>(a, 1), arg<int>(a, 2), arg<int>(a, 3),
             arg<int>(a, 4), arg<u64 *>(a, 5));
}
static void run_starts(void **a)
{
    bs_starts(arg<const u64 *>(a, 0), arg<int>(a, 1), arg<u64 *>(a, 2));
}
static void run_scatter(void **a)
{
    bs_scatter(arg<const unsigned char *>(a, 0), arg<u64>(a, 1), arg<int>(a, 2),
               arg<int>(a, 3), arg<int>(a, 4), arg<u64 *>(a, 5), arg<unsigned char *>(a, 6));
}
static void run_keys(void **a)
{
    bs_keys(arg<const unsigned char *>(a, 0), arg<u64>(a, 1), arg<int>(a, 2), arg<int>(a, 3),
            arg<u64>(a, 4), arg<u64 *>(a, 5), arg<unsigned int *>(a, 6));
}
static void run_bitonic(void **a)
{
    bs_bitonic(arg<u64 *>(a, 0), arg<unsigned int *>(a, 1), arg<u64>(a, 2), arg<u64>(a, 3),
               arg<u64>(a, 4));
}
static void run_gather(void **a)
{
    bs_gather(arg<const unsigned char *>(a, 0), arg<const unsigned int *>(a, 1),
              arg<u64>(a, 2), arg<int>(a, 3), arg<unsigned char *>(a, 4));
}

static const struct {
    const char *name;
    void (*run)(void **);
} kernels[] = {
    { "bs_count", run_count }, { "bs_starts", run_starts },   { "bs_scatter", run_scatter },
    { "bs_keys", run_keys },   { "bs_bitonic", run_bitonic }, { "bs_gather", run_gather },
};

/* ---- the driver API ---------------------------------------------------------------- */

typedef int CUresult;
enum {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    INVALID_DEVICE = 101,
    NOT_FOUND = 500,
    LAUNCH_OUT_OF_RESOURCES = 701,
};

static std::mutex mu;
static std::map<u64, size_t> allocations; /* start -> size */
static int handle;                        /* what contexts, modules and streams point to */

/* Whether [p, p + n) lies in one allocation. */
static bool device_range(u64 p, size_t n)
{
    std::lock_guard<std::mutex> g(mu);
    auto it = allocations.upper_bound(p);
    if (it == allocations.begin())
        return false;
    --it;
    return p - it->first <= it->second && n <= it->second - (p - it->first);
}

extern "C" {
CUresult cuInit(unsigned)
{
    return OK;
}
CUresult cuDeviceGetCount(int *n)
{
    *n = 1;
    return OK;
}
CUresult cuDeviceGet(int *dev, int ordinal)
{
    *dev = ordinal;
    return ordinal == 0 ? OK : INVALID_DEVICE;
}
CUresult cuDeviceGetName(char *name, int len, int)
{
    snprintf(name, (size_t)len, "the CPU (a stand-in for libcuda)");
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int)
{
    *ctx = &handle;
    return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int)
{
    return OK;
}
CUresult cuCtxSetCurrent(void *)
{
    return OK;
}
CUresult cuModuleLoadData(void **mod, const void *image)
{
    *mod = &handle;
    return image ? OK : INVALID_VALUE;
}
CUresult cuModuleUnload(void *)
{
    return OK;
}
CUresult cuModuleGetFunction(void **fn, void *, const char *name)
{
    for (auto &k : kernels)
        if (!strcmp(k.name, name)) {
            *fn = reinterpret_cast<void *>(k.run);
            return OK;
        }
    return NOT_FOUND;
}
CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *, void **params,
                        void **extra)
{
    if (!gx || !gy || !gz || !bx || bx > MAX_THREADS || by != 1 || bz != 1 || extra ||
        !params)
        return INVALID_VALUE;
    if (shared > 48 * 1024)
        return LAUNCH_OUT_OF_RESOURCES;
    std::lock_guard<std::mutex> g(mu);
    body = reinterpret_cast<void (*)(void **)>(fn);
    body_args = params;
    blockDim = emu_dim3{ bx, 1, 1 };
    gridDim = emu_dim3{ gx, 1, 1 };
    for (unsigned b = 0; b < gx; b++) {
        blockIdx = emu_dim3{ b, 0, 0 };
        run_block();
    }
    return OK;
}
CUresult cuMemAlloc_v2(u64 *p, size_t n)
{
    void *m = malloc(n ? n : 1);
    if (!m)
        return OUT_OF_MEMORY;
    std::lock_guard<std::mutex> g(mu);
    allocations[(u64)(uintptr_t)m] = n;
    *p = (u64)(uintptr_t)m;
    return OK;
}
CUresult cuMemFree_v2(u64 p)
{
    std::lock_guard<std::mutex> g(mu);
    if (!allocations.erase(p))
        return INVALID_VALUE;
    free(reinterpret_cast<void *>(p));
    return OK;
}
CUresult cuMemcpyHtoDAsync_v2(u64 dst, const void *src, size_t n, void *)
{
    if (!device_range(dst, n))
        return INVALID_VALUE;
    memcpy(reinterpret_cast<void *>(dst), src, n);
    return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, u64 src, size_t n, void *)
{
    if (!device_range(src, n))
        return INVALID_VALUE;
    memcpy(dst, reinterpret_cast<void *>(src), n);
    return OK;
}
CUresult cuMemcpyDtoDAsync_v2(u64 dst, u64 src, size_t n, void *)
{
    if (!device_range(dst, n) || !device_range(src, n))
        return INVALID_VALUE;
    memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n);
    return OK;
}
CUresult cuMemsetD8Async(u64 dst, unsigned char v, size_t n, void *)
{
    if (!device_range(dst, n))
        return INVALID_VALUE;
    memset(reinterpret_cast<void *>(dst), v, n);
    return OK;
}
CUresult cuStreamCreate(void **s, unsigned)
{
    *s = &handle;
    return OK;
}
CUresult cuStreamSynchronize(void *)
{
    return OK;
}
CUresult cuStreamDestroy_v2(void *)
{
    return OK;
}
CUresult cuGetErrorString(CUresult rc, const char **s)
{
    *s = rc == INVALID_VALUE ? "invalid argument (stand-in)" : "error (stand-in)";
    return OK;
}
}
