/* Backend selection and the memory-type cache (device.h). */
#include "device/device.h"
#include "env/log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

const struct shoal_dev_ops *shoal_dev;

static const struct shoal_dev_ops *const backends[] = { &shoal_dev_cuda, &shoal_dev_rocm,
                                                        &shoal_dev_emu };
/* The library each dlopen'd backend needs; with only_loaded it must already be loaded.
 * emu (no library) is never chosen unless named: a GPU node whose GPU fails to start
 * must not run on emulated memory. */
static const char *const backend_lib[] = { "libcuda.so.1", "libamdhip64.so", NULL };

static int already_loaded(const char *lib)
{
    void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}

int shoal_dev_select(const char *name, int local_index, int only_loaded, char *err,
                     size_t len)
{
    shoal_dev = NULL;
    if (strcmp(name, "none") == 0)
        return 0;
    size_t used = 0;
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++) {
        const struct shoal_dev_ops *b = backends[i];
        if (*name && strcmp(name, b->name) != 0)
            continue;
        if (!*name && (!backend_lib[i] || (only_loaded && !already_loaded(backend_lib[i]))))
            continue;
        char why[256] = "";
        if (b->init(local_index, why, sizeof why) == 0) {
            shoal_dev = b;
            SHOAL_LOG(DEVICE, INFO,
                      "backend %s started for local PE %d: device %d (SHOAL_DEVICE=%s)",
                      b->name, local_index, b->ordinal(), *name ? name : "auto");
            return 0;
        }
        SHOAL_LOG(DEVICE, INFO, "backend %s did not start: %s", b->name, why);
        if (*name) {
            snprintf(err, len, "%s", why);
            return -1;
        }
        if (used < len) /* why each automatic choice failed, for the caller's message */
            used += (size_t)snprintf(err + used, len - used, "%s%s: %s", used ? "; " : "",
                                     b->name, why);
    }
    if (*name) {
        snprintf(err, len,
                 "SHOAL_DEVICE=%s names no device backend; use emu, cuda, rocm "
                 "or none",
                 name);
        return -1;
    }
    return 0;
}

const char *shoal_dev_iface_name(enum shoal_dev_iface iface)
{
    switch (iface) {
    case SHOAL_DEV_IFACE_ALIAS: return "host alias";
    case SHOAL_DEV_IFACE_SYSTEM: return "system memory";
    case SHOAL_DEV_IFACE_CUDA: return "CUDA memory";
    case SHOAL_DEV_IFACE_ROCR: return "ROCm memory";
    case SHOAL_DEV_IFACE_NONE: break;
    }
    return "nothing a network can reach";
}

/* Copies started and not yet completed: set after each start, cleared before the sync
 * that completes them, so a copy started meanwhile leaves it set for the next one. */
static int pending;

int shoal_dev_copy_async(void *d, const void *s, size_t n)
{
    if (!shoal_dev->copy_async || shoal_dev->copy_async(d, s, n))
        return -1;
    __atomic_store_n(&pending, 1, __ATOMIC_RELEASE);
    return 0;
}

int shoal_dev_complete(void)
{
    if (!__atomic_load_n(&pending, __ATOMIC_ACQUIRE) ||
        !__atomic_exchange_n(&pending, 0, __ATOMIC_ACQ_REL))
        return 0;
    return shoal_dev->sync();
}

int shoal_mem_copy(void *d, enum shoal_mem_kind dk, const void *s, enum shoal_mem_kind sk,
                   size_t n)
{
    if (dk == SHOAL_MEM_DEVICE && sk == SHOAL_MEM_DEVICE)
        return shoal_dev_d2d(d, s, n);
    if (dk == SHOAL_MEM_DEVICE)
        return shoal_dev_h2d(d, s, n);
    if (sk == SHOAL_MEM_DEVICE)
        return shoal_dev_d2h(d, s, n);
    memcpy(d, s, n);
    return 0;
}

int shoal_mem_copy_start(void *d, enum shoal_mem_kind dk, const void *s,
                         enum shoal_mem_kind sk, size_t n)
{
    if (dk == SHOAL_MEM_HOST && sk == SHOAL_MEM_HOST)
        return -1;
    return shoal_dev_copy_async(d, s, n);
}

void shoal_dev_shutdown(void)
{
    if (shoal_dev)
        shoal_dev->fini();
    shoal_dev = NULL;
    pending = 0;
    shoal_dev_forget(NULL, 0);
}

/* ---- memory-type cache ---------------------------------------------------------------
 * A handful of intervals, scanned linearly (a program has few device buffers and
 * fewer host buffers that it keeps passing). Readers take no lock: they read the
 * sequence counter, scan, and retry if a writer ran meanwhile (odd or changed). */
#define CACHE_SLOTS 32
#define HOST_SPAN ((uintptr_t)4096)

struct range {
    uintptr_t start, end;
    int device;
};

static struct range cache[CACHE_SLOTS];
static unsigned seq;
static unsigned next_slot;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* The cached range holding a: its kind in *device, its bounds in [*start, *end). */
static int cache_find(uintptr_t a, int *device, uintptr_t *start, uintptr_t *end)
{
    for (;;) {
        unsigned s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
        int found = 0;
        if (!(s1 & 1)) {
            for (int i = 0; i < CACHE_SLOTS; i++) {
                uintptr_t st = __atomic_load_n(&cache[i].start, __ATOMIC_RELAXED);
                uintptr_t en = __atomic_load_n(&cache[i].end, __ATOMIC_RELAXED);
                if (a - st < en - st) {
                    *device = __atomic_load_n(&cache[i].device, __ATOMIC_RELAXED);
                    *start = st;
                    *end = en;
                    found = 1;
                    break;
                }
            }
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            if (__atomic_load_n(&seq, __ATOMIC_RELAXED) == s1)
                return found;
        }
    }
}

static void write_begin(void)
{
    pthread_mutex_lock(&cache_lock);
    __atomic_store_n(&seq, seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(void)
{
    __atomic_store_n(&seq, seq + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&cache_lock);
}

static void set_slot(int i, uintptr_t start, uintptr_t end, int device)
{
    __atomic_store_n(&cache[i].start, start, __ATOMIC_RELAXED);
    __atomic_store_n(&cache[i].end, end, __ATOMIC_RELAXED);
    __atomic_store_n(&cache[i].device, device, __ATOMIC_RELAXED);
}

int shoal_dev_is_device(const void *p)
{
    uintptr_t start, end;
    return shoal_dev_extent(p, &start, &end);
}

int shoal_dev_extent(const void *p, uintptr_t *start, uintptr_t *end)
{
    int device;
    if (!shoal_dev || !p)
        return 0;
    if (cache_find((uintptr_t)p, &device, start, end))
        return device;
    uintptr_t base;
    size_t len;
    device = shoal_dev->query(p, &base, &len);
    /* A host buffer is remembered by its page: the backend cannot say how far it
     * extends, and a page cannot turn into device memory without an allocation or a
     * free that this layer sees (or a failed copy that makes the caller forget it). */
    SHOAL_LOG(DEVICE, DEBUG, "%p is %s memory%s", p, device ? shoal_dev->name : "host",
              device ? "" : " (its page is remembered as such)");
    *start = device ? base : (uintptr_t)p & ~(HOST_SPAN - 1);
    *end = device ? base + len : *start + HOST_SPAN;
    write_begin();
    set_slot((int)(next_slot++ % CACHE_SLOTS), *start, *end, device);
    write_end();
    return device;
}

void shoal_dev_forget(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p, e = a + len;
    write_begin();
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (!p || (cache[i].start < e && a < cache[i].end))
            set_slot(i, 0, 0, 0);
    write_end();
}

void *shoal_dev_alloc(size_t n)
{
    void *p = shoal_dev->alloc(n);
    if (p)
        shoal_dev_forget(p, n);
    return p;
}

int shoal_dev_free(void *p)
{
    uintptr_t base;
    size_t len;
    if (shoal_dev->query(p, &base, &len) != 1)
        return -1;
    shoal_dev_forget((void *)base, len);
    return shoal_dev->free(p);
}
