/* Test-only streams and kernels on the backend Shoal selected, so that one test
 * program checks stream ordering and overlap on the emulated device and on a real GPU:
 *   emu:  an emu stream (device/emu/emu.h); kernels are functions on its thread that
 *         reach device memory only through the device layer's copies;
 *   cuda: a CUstream of the primary context, as the CUDA runtime would give the
 *         program; kernels are PTX (below), loaded through the driver API.
 * Kernels:
 *   hold:  runs until *flag (host memory from tstream_host_word) is nonzero, then sets
 *          *seen to 1; after limit_ms it gives up and sets *seen to 2;
 *   fill:  waits delay_us, then stores v into the n 64-bit words at p (device memory). */
#ifndef SHOAL_TEST_STREAM_H
#define SHOAL_TEST_STREAM_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/emu/emu.h"
#include "test_device.h"

static inline int tstream_is_emu(void)
{
    return strcmp(tdev_name(), "emu") == 0;
}

/* ---- cuda: the driver API, as a CUDA program would reach it ---------------------- */
static const char tstream_ptx[] =
        ".version 6.0\n.target sm_50\n.address_size 64\n"
        ".visible .entry hold(.param .u64 flag, .param .u64 seen, .param .u64 limit)\n{\n"
        " .reg .pred %p<3>;\n .reg .b32 %r<3>;\n .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [flag];\n ld.param.u64 %rd2, [seen];\n"
        " ld.param.u64 %rd3, [limit];\n mov.u64 %rd4, %globaltimer;\n"
        "LOOP:\n ld.volatile.global.u32 %r1, [%rd1];\n setp.ne.u32 %p1, %r1, 0;\n"
        " @%p1 bra SEEN;\n mov.u64 %rd5, %globaltimer;\n sub.u64 %rd6, %rd5, %rd4;\n"
        " setp.lt.u64 %p2, %rd6, %rd3;\n @%p2 bra LOOP;\n mov.u32 %r2, 2;\n"
        " st.volatile.global.u32 [%rd2], %r2;\n ret;\n"
        "SEEN:\n mov.u32 %r2, 1;\n st.volatile.global.u32 [%rd2], %r2;\n ret;\n}\n"
        ".visible .entry fill(.param .u64 p, .param .u64 n, .param .u64 v, .param .u64 "
        "d)\n{\n"
        " .reg .pred %p<3>;\n .reg .b64 %rd<12>;\n"
        " ld.param.u64 %rd1, [p];\n ld.param.u64 %rd2, [n];\n ld.param.u64 %rd3, [v];\n"
        " ld.param.u64 %rd4, [d];\n mov.u64 %rd5, %globaltimer;\n"
        "WAIT:\n mov.u64 %rd6, %globaltimer;\n sub.u64 %rd7, %rd6, %rd5;\n"
        " setp.lt.u64 %p1, %rd7, %rd4;\n @%p1 bra WAIT;\n mov.u64 %rd8, 0;\n"
        "FILL:\n setp.ge.u64 %p2, %rd8, %rd2;\n @%p2 bra DONE;\n shl.b64 %rd9, %rd8, 3;\n"
        " add.u64 %rd10, %rd1, %rd9;\n st.global.u64 [%rd10], %rd3;\n"
        " add.u64 %rd8, %rd8, 1;\n bra FILL;\nDONE:\n ret;\n}\n";

static struct {
    void *lib, *ctx, *mod, *hold, *fill;
    int (*DeviceGet)(int *, int);
    int (*PrimaryCtxRetain)(void **, int);
    int (*CtxSetCurrent)(void *);
    int (*CtxGetCurrent)(void **);
    int (*StreamCreate)(void **, unsigned);
    int (*StreamSynchronize)(void *);
    int (*StreamDestroy)(void *);
    int (*ModuleLoadData)(void **, const void *);
    int (*ModuleGetFunction)(void **, void *, const char *);
    int (*LaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void *, void **, void **);
    int (*MemHostAlloc)(void **, size_t, unsigned);
    int (*MemFreeHost)(void *);
    int (*MemHostGetDevicePointer)(unsigned long long *, void *, unsigned);
    int (*MemcpyAsync)(unsigned long long, unsigned long long, size_t, void *);
} tcu;

static inline void *tcu_sym(const char *name)
{
    void *f = dlsym(tcu.lib, name);
    CHECK(f != NULL);
    return f;
}

/* The primary context of device 0 current in this thread, as after cudaSetDevice(0). */
static inline void tcu_setup(void)
{
    if (tcu.lib)
        return;
    CHECK((tcu.lib = dlopen("libcuda.so.1", RTLD_NOW)) != NULL);
#define TCU(f, n) memcpy(&tcu.f, &(void *){ tcu_sym(n) }, sizeof(void *))
    TCU(DeviceGet, "cuDeviceGet");
    TCU(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    TCU(CtxSetCurrent, "cuCtxSetCurrent");
    TCU(CtxGetCurrent, "cuCtxGetCurrent");
    TCU(StreamCreate, "cuStreamCreate");
    TCU(StreamSynchronize, "cuStreamSynchronize");
    TCU(StreamDestroy, "cuStreamDestroy_v2");
    TCU(ModuleLoadData, "cuModuleLoadData");
    TCU(ModuleGetFunction, "cuModuleGetFunction");
    TCU(LaunchKernel, "cuLaunchKernel");
    TCU(MemHostAlloc, "cuMemHostAlloc");
    TCU(MemFreeHost, "cuMemFreeHost");
    TCU(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
    TCU(MemcpyAsync, "cuMemcpyAsync");
#undef TCU
    int dev;
    /* Shoal uses device (index on the node) mod count; the tests run on one GPU. */
    CHECK(tcu.DeviceGet(&dev, 0) == 0);
    CHECK(tcu.PrimaryCtxRetain(&tcu.ctx, dev) == 0);
    CHECK(tcu.CtxSetCurrent(tcu.ctx) == 0);
    CHECK(tcu.ModuleLoadData(&tcu.mod, tstream_ptx) == 0);
    CHECK(tcu.ModuleGetFunction(&tcu.hold, tcu.mod, "hold") == 0);
    CHECK(tcu.ModuleGetFunction(&tcu.fill, tcu.mod, "fill") == 0);
}

static inline unsigned long long tcu_devptr(void *host)
{
    unsigned long long d;
    CHECK(tcu.MemHostGetDevicePointer(&d, host, 0) == 0);
    return d;
}

/* ---- the backend-neutral helpers --------------------------------------------------- */
static inline void *tstream_create(void)
{
    if (tstream_is_emu()) {
        void *s = shoal_emu_stream_create();
        CHECK(s != NULL);
        return s;
    }
    tcu_setup();
    void *s;
    CHECK(tcu.StreamCreate(&s, 1 /* non-blocking */) == 0);
    return s;
}

static inline void tstream_sync(void *s)
{
    if (tstream_is_emu())
        shoal_emu_stream_synchronize(s);
    else
        CHECK(tcu.StreamSynchronize(s) == 0);
}

static inline void tstream_destroy(void *s)
{
    if (tstream_is_emu())
        shoal_emu_stream_destroy(s);
    else
        CHECK(tcu.StreamDestroy(s) == 0);
}

/* A zeroed host word that kernels can read and write (pinned and mapped on cuda). */
static inline volatile uint32_t *tstream_host_word(void)
{
    void *p;
    if (tstream_is_emu()) {
        p = calloc(1, sizeof(uint32_t));
        CHECK(p != NULL);
    } else {
        tcu_setup();
        CHECK(tcu.MemHostAlloc(&p, sizeof(uint32_t), 1 | 2 /* portable, mapped */) == 0);
        memset(p, 0, sizeof(uint32_t));
    }
    return p;
}

static inline void tstream_host_word_free(volatile uint32_t *w)
{
    if (tstream_is_emu())
        free((void *)w);
    else
        CHECK(tcu.MemFreeHost((void *)w) == 0);
}

struct tstream_hold_arg {
    volatile uint32_t *flag, *seen;
    unsigned limit_ms;
};

static inline void tstream_hold_emu(void *a)
{
    struct tstream_hold_arg *h = a;
    for (unsigned waited = 0; !__atomic_load_n(h->flag, __ATOMIC_ACQUIRE); waited++) {
        if (waited >= h->limit_ms * 10) {
            __atomic_store_n(h->seen, 2, __ATOMIC_RELEASE);
            free(h);
            return;
        }
        usleep(100);
    }
    __atomic_store_n(h->seen, 1, __ATOMIC_RELEASE);
    free(h);
}

static inline void tstream_hold(void *s, volatile uint32_t *flag, volatile uint32_t *seen,
                                unsigned limit_ms)
{
    if (tstream_is_emu()) {
        struct tstream_hold_arg *h = malloc(sizeof *h);
        CHECK(h != NULL);
        *h = (struct tstream_hold_arg){ flag, seen, limit_ms };
        CHECK(shoal_emu_launch(s, tstream_hold_emu, h) == 0);
        return;
    }
    unsigned long long f = tcu_devptr((void *)flag), w = tcu_devptr((void *)seen);
    unsigned long long ns = (unsigned long long)limit_ms * 1000000ull;
    void *args[] = { &f, &w, &ns };
    CHECK(tcu.LaunchKernel(tcu.hold, 1, 1, 1, 1, 1, 1, 0, s, args, NULL) == 0);
}

struct tstream_fill_arg {
    uint64_t *p;
    size_t n;
    uint64_t v;
    unsigned delay_us;
};

static inline void tstream_fill_emu(void *a)
{
    struct tstream_fill_arg *f = a;
    usleep(f->delay_us);
    uint64_t *b = malloc(f->n * sizeof *b);
    CHECK(b != NULL);
    for (size_t i = 0; i < f->n; i++)
        b[i] = f->v;
    tdev_h2d(f->p, b, f->n * sizeof *b);
    free(b);
    free(f);
}

static inline void tstream_fill(void *s, uint64_t *p, size_t n, uint64_t v, unsigned delay_us)
{
    if (tstream_is_emu()) {
        struct tstream_fill_arg *f = malloc(sizeof *f);
        CHECK(f != NULL);
        *f = (struct tstream_fill_arg){ p, n, v, delay_us };
        CHECK(shoal_emu_launch(s, tstream_fill_emu, f) == 0);
        return;
    }
    unsigned long long dp = (uintptr_t)p, dn = n, dv = v, dd = delay_us * 1000ull;
    void *args[] = { &dp, &dn, &dv, &dd };
    CHECK(tcu.LaunchKernel(tcu.fill, 1, 1, 1, 1, 1, 1, 0, s, args, NULL) == 0);
}

struct tstream_copy_arg {
    void *dst;
    const void *src;
    size_t n;
};

static inline void tstream_copy_emu(void *a)
{
    struct tstream_copy_arg *c = a;
    tdev_d2d(c->dst, c->src, c->n);
    free(c);
}

/* A device-to-device copy in stream order: work after a stream operation. */
static inline void tstream_copy(void *s, void *dst, const void *src, size_t n)
{
    if (tstream_is_emu()) {
        struct tstream_copy_arg *c = malloc(sizeof *c);
        CHECK(c != NULL);
        *c = (struct tstream_copy_arg){ dst, src, n };
        CHECK(shoal_emu_launch(s, tstream_copy_emu, c) == 0);
        return;
    }
    CHECK(tcu.MemcpyAsync((uintptr_t)dst, (uintptr_t)src, n, s) == 0);
}

#endif
