/* The symmetric allocation routines. Each is collective over the world team: every
 * PE runs the same deterministic allocator (mem/alloc.c) on the same call sequence,
 * so the same offset comes back everywhere, and a barrier publishes the result. */
#include <stdio.h>
#include <string.h>
#include <shmemx.h>

#include "api/api.h"
#include "coll/coll_common.h"
#include "device/device.h"
#include "mem/alloc.h"
#include "mem/device_heap.h"
#include "mem/segment.h"
#include "env/log.h"

/* SHMEM_DEBUG: every PE must make the same call with the same arguments (coll/coll.c
 * compares them over the world team). Without SHMEM_DEBUG one predictable branch. A
 * call that does nothing (size 0, shmem_free(NULL)) compares too: a PE that passes 0
 * where the others pass a size is named, not waited for. Without SHMEM_DEBUG such a
 * call does not communicate. */
static void agree(const char *fn, const struct coll_arg *args, int nargs)
{
    struct coll c;
    if (coll_team_begin(fn, SHMEM_TEAM_WORLD, &c) == 0 && c.n > 1)
        coll_debug_agree(fn, &c, args, nargs);
}
#define AGREE(fn, ...)                                                                       \
    do {                                                                                     \
        if (SHOAL_UNLIKELY(shoal.cfg.debug)) {                                               \
            const struct coll_arg agree_[] = { __VA_ARGS__ };                                \
            agree(fn, agree_, (int)(sizeof agree_ / sizeof *agree_));                        \
        }                                                                                    \
    } while (0)

/* A block's offset in its heap for the comparison, -1 for NULL or a pointer outside the
 * heaps (block_of rejects those afterwards). */
static int64_t agree_offset(const void *ptr)
{
    uint64_t off;
    int s = ptr ? shoal_seg_of(ptr, &off) : -1;
    return s == SHOAL_SEG_HEAP || s == SHOAL_SEG_DEVICE ? (int64_t)off : -1;
}
#define PTR_ARG(ptr)                                                                         \
    COLL_ARG_INT("ptr (as an offset into its heap; -1: NULL or not in one)",                 \
                 agree_offset(ptr))

/* A heap: the default one (SHMEM_SPACE_DEFAULT) or the device heap (SHMEM_SPACE_DEVICE,
 * mem/device_heap.c), which only device copies may touch. */
struct heap {
    int seg;
    struct shoal_alloc *alloc;
    const char *size_var;
    size_t size;
};

static struct heap heap_of_seg(int seg)
{
    if (seg == SHOAL_SEG_DEVICE)
        return (struct heap){ seg, shoal_dev_heap.alloc, "SHMEM_SYMMETRIC_SIZE_DEVICE",
                              shoal.cfg.symmetric_size_device };
    return (struct heap){ SHOAL_SEG_HEAP, shoal_heap_alloc, "SHMEM_SYMMETRIC_SIZE",
                          shoal.cfg.symmetric_size };
}

static _Noreturn void bad_space(const char *routine, shmem_space_t space)
{
    shoal_fatal(routine, "space %d is neither SHMEM_SPACE_DEFAULT nor SHMEM_SPACE_DEVICE",
                (int)space);
}

static struct heap heap_of_space(const char *routine, shmem_space_t space)
{
    if (space == SHMEM_SPACE_DEFAULT)
        return heap_of_seg(SHOAL_SEG_HEAP);
    if (space != SHMEM_SPACE_DEVICE)
        bad_space(routine, space);
    return heap_of_seg(SHOAL_SEG_DEVICE);
}

static void *heap_ptr(const struct heap *h, size_t off)
{
    return (void *)(shoal.seg[h->seg].base + off);
}

static void human_size(size_t n, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (n >= 1024 && n % 1024 == 0 && u < 3) {
        n /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%zu", n);
    else
        snprintf(buf, len, "%zu%c", n, units[u]);
}

static void *heap_exhausted(const char *routine, const struct heap *h, size_t size)
{
    char now[32];
    struct shoal_alloc_stats st = { 0 };
    if (!h->alloc) {
        shoal_warn(routine,
                   "%zu bytes requested in SHMEM_SPACE_DEVICE, but there is no device "
                   "space; set SHMEM_SYMMETRIC_SIZE_DEVICE (e.g. 256M) to create one",
                   size);
        return NULL;
    }
    shoal_alloc_stats(h->alloc, &st);
    SHOAL_LOG(MEM, DEBUG, "%s: %zu bytes refused, %zu bytes largest free", routine, size,
              st.largest_free);
    human_size(h->size, now, sizeof now);
    shoal_warn(routine,
               "%zu bytes requested, %s exhausted (largest free block %zu bytes); "
               "raise %s (now %s)",
               size, h->seg == SHOAL_SEG_DEVICE ? "device heap" : "symmetric heap",
               st.largest_free, h->size_var, now);
    return NULL;
}

/* Zeroes or copies inside a heap; device memory only through device copies. */
static void heap_zero(const struct heap *h, void *p, size_t size)
{
    if (h->seg != SHOAL_SEG_DEVICE) {
        memset(p, 0, size);
        return;
    }
    static const char zeros[64 * 1024];
    for (size_t done = 0; done < size; done += sizeof zeros) {
        size_t n = size - done < sizeof zeros ? size - done : sizeof zeros;
        if (shoal_dev_h2d((char *)p + done, zeros, n))
            shoal_fatal("shmem_space_alloc", "the %s device failed to clear device memory",
                        shoal_dev->name);
    }
}

static void heap_move(const struct heap *h, void *dst, const void *src, size_t n)
{
    if (h->seg != SHOAL_SEG_DEVICE)
        memcpy(dst, src, n);
    else if (shoal_dev_d2d(dst, src, n))
        shoal_fatal("shmem_space_realloc", "the %s device failed to copy device memory",
                    shoal_dev->name);
}

static void *heap_alloc_sync(const char *routine, const struct heap *h, size_t size,
                             size_t align, int zero, int barrier)
{
    shoal_require_init(routine);
    if (size == 0)
        return NULL;
    size_t off = h->alloc ? shoal_alloc_get(h->alloc, size, align) : SHOAL_ALLOC_FAIL;
    void *p = off == SHOAL_ALLOC_FAIL ? heap_exhausted(routine, h, size) : heap_ptr(h, off);
    if (p && zero)
        heap_zero(h, p, size);
    if (barrier)
        shoal_barrier_world();
    return p;
}

static void *heap_alloc(const char *routine, const struct heap *h, size_t size, size_t align,
                        int zero)
{
    return heap_alloc_sync(routine, h, size, align, zero, 1);
}

static void *alloc_in(const char *routine, const struct heap *h, size_t size)
{
    SHOAL_LOG_SCOPE(routine);
    AGREE(routine, COLL_ARG_SIZE("size", size));
    return heap_alloc(routine, h, size, 16, 0);
}

void *shmem_malloc(size_t size)
{
    struct heap h = heap_of_seg(SHOAL_SEG_HEAP);
    return alloc_in("shmem_malloc", &h, size);
}
SHOAL_PROFILED(shmem_malloc)

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* The standard hints are performance hints and one heap serves them all; the
     * deterministic allocator needs no barrier to agree, so SHMEMX_MALLOC_NO_BARRIER
     * can drop it and leave ordering to the caller. */
    struct heap h = heap_of_seg(SHOAL_SEG_HEAP);
    AGREE("shmem_malloc_with_hints", COLL_ARG_SIZE("size", size));
    return heap_alloc_sync("shmem_malloc_with_hints", &h, size, 16, 0,
                           !(hints & SHMEMX_MALLOC_NO_BARRIER));
}
SHOAL_PROFILED(shmem_malloc_with_hints)

static void *calloc_in(const char *routine, const struct heap *h, size_t count, size_t size)
{
    SHOAL_LOG_SCOPE(routine);
    AGREE(routine, COLL_ARG_SIZE("count", count), COLL_ARG_SIZE("size", size));
    if (count && size > SIZE_MAX / count) {
        shoal_require_init(routine);
        return heap_exhausted(routine, h, SIZE_MAX);
    }
    return heap_alloc(routine, h, count * size, 16, 1);
}

void *shmem_calloc(size_t count, size_t size)
{
    struct heap h = heap_of_seg(SHOAL_SEG_HEAP);
    return calloc_in("shmem_calloc", &h, count, size);
}
SHOAL_PROFILED(shmem_calloc)

static void *align_in(const char *routine, const struct heap *h, size_t alignment,
                      size_t size)
{
    SHOAL_LOG_SCOPE(routine);
    AGREE(routine, COLL_ARG_SIZE("alignment", alignment), COLL_ARG_SIZE("size", size));
    if (alignment == 0 || (alignment & (alignment - 1))) {
        shoal_require_init(routine);
        shoal_warn(routine, "alignment %zu is not a power of two; returning NULL", alignment);
        return NULL;
    }
    if (alignment > SHOAL_HEAP_BASE_ALIGN) {
        shoal_require_init(routine);
        shoal_warn(routine,
                   "alignment %zu exceeds the largest supported (%zu); "
                   "returning NULL",
                   alignment, SHOAL_HEAP_BASE_ALIGN);
        return NULL;
    }
    /* 1, 2 or 4: rounded up, as other implementations do, rather than refused. */
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    return heap_alloc(routine, h, size, alignment, 0);
}

void *shmem_align(size_t alignment, size_t size)
{
    struct heap h = heap_of_seg(SHOAL_SEG_HEAP);
    return align_in("shmem_align", &h, alignment, size);
}
SHOAL_PROFILED(shmem_align)

/* The heap holding ptr, which must start a live block of it; its offset in *off. */
static struct heap block_of(const char *routine, const void *ptr, size_t *off)
{
    uint64_t o;
    int s = shoal_seg_of(ptr, &o);
    if (s == SHOAL_SEG_HEAP || s == SHOAL_SEG_DEVICE) {
        struct heap h = heap_of_seg(s);
        if (h.alloc && shoal_alloc_size(h.alloc, o) != 0) {
            *off = o;
            return h;
        }
    }
    shoal_fatal(routine,
                "%p was not returned by shmem_malloc/shmem_calloc/shmem_align/"
                "shmem_realloc or their shmem_space_ forms, or was already freed",
                ptr);
}

static void free_in(const char *routine, const void *ptr, const struct heap *want)
{
    SHOAL_LOG_SCOPE(routine);
    shoal_require_init(routine);
    AGREE(routine, PTR_ARG(ptr));
    if (!ptr)
        return;
    size_t off;
    struct heap h = block_of(routine, ptr, &off);
    if (want && want->seg != h.seg)
        shoal_fatal(routine, "%p belongs to %s, not to the space passed", ptr,
                    h.seg == SHOAL_SEG_DEVICE ? "SHMEM_SPACE_DEVICE" : "SHMEM_SPACE_DEFAULT");
    shoal_barrier_world();
    shoal_alloc_put(h.alloc, off);
}

void shmem_free(void *ptr)
{
    free_in("shmem_free", ptr, NULL);
}
SHOAL_PROFILED(shmem_free)

/* want: the heap the caller named (shmem_space_realloc), or NULL (shmem_realloc: the
 * heap ptr is in; the default one for NULL). */
static void *realloc_in(const char *routine, const struct heap *want, void *ptr, size_t size)
{
    SHOAL_LOG_SCOPE(routine);
    AGREE(routine, PTR_ARG(ptr), COLL_ARG_SIZE("size", size));
    struct heap dflt = heap_of_seg(SHOAL_SEG_HEAP);
    if (!ptr)
        return heap_alloc(routine, want ? want : &dflt, size, 16, 0);
    if (size == 0) {
        free_in(routine, ptr, want);
        return NULL;
    }
    shoal_require_init(routine);
    size_t off;
    struct heap h = block_of(routine, ptr, &off);
    if (want && want->seg != h.seg)
        shoal_fatal(routine,
                    "%p belongs to %s, not to the space passed; reallocate it in "
                    "its own space",
                    ptr,
                    h.seg == SHOAL_SEG_DEVICE ? "SHMEM_SPACE_DEVICE" : "SHMEM_SPACE_DEFAULT");
    size_t old = shoal_alloc_size(h.alloc, off);
    /* Every PE has finished touching the old block before any moves it. */
    shoal_barrier_world();
    void *res = ptr;
    if (shoal_alloc_resize(h.alloc, off, size)) {
        size_t noff = shoal_alloc_get(h.alloc, size, 16);
        if (noff == SHOAL_ALLOC_FAIL) {
            res = heap_exhausted(routine, &h, size);
        } else {
            heap_move(&h, heap_ptr(&h, noff), ptr, old < size ? old : size);
            shoal_alloc_put(h.alloc, off);
            res = heap_ptr(&h, noff);
        }
    }
    shoal_barrier_world();
    return res;
}

void *shmem_realloc(void *ptr, size_t size)
{
    return realloc_in("shmem_realloc", NULL, ptr, size);
}
SHOAL_PROFILED(shmem_realloc)

/* ---- Memory spaces (shmemx.h): the same routines on the heap a space names. ---- */

void *shmem_space_malloc(shmem_space_t space, size_t size)
{
    struct heap h = heap_of_space("shmem_space_malloc", space);
    return alloc_in("shmem_space_malloc", &h, size);
}
SHOAL_PROFILED(shmem_space_malloc)

void *shmem_space_alloc(shmem_space_t space, size_t count, size_t size)
{
    struct heap h = heap_of_space("shmem_space_alloc", space);
    return calloc_in("shmem_space_alloc", &h, count, size);
}
SHOAL_PROFILED(shmem_space_alloc)

void *shmem_space_align(shmem_space_t space, size_t alignment, size_t size)
{
    struct heap h = heap_of_space("shmem_space_align", space);
    return align_in("shmem_space_align", &h, alignment, size);
}
SHOAL_PROFILED(shmem_space_align)

void *shmem_space_realloc(shmem_space_t space, void *ptr, size_t size)
{
    struct heap h = heap_of_space("shmem_space_realloc", space);
    return realloc_in("shmem_space_realloc", &h, ptr, size);
}
SHOAL_PROFILED(shmem_space_realloc)

void shmem_space_free(shmem_space_t space, void *ptr)
{
    struct heap h = heap_of_space("shmem_space_free", space);
    free_in("shmem_space_free", ptr, &h);
}
SHOAL_PROFILED(shmem_space_free)

void shoal_debug_local(const char *routine, const void *buf)
{
    if (!shoal.cfg.enable_device_awareness && !shoal_dev_sym(buf) && shoal_dev_is_device(buf))
        shoal_fatal(routine,
                    "local buffer %p is device memory, but device awareness is off; "
                    "set SHMEM_ENABLE_DEVICE_AWARENESS=1 or pass a host buffer",
                    buf);
}

int shmem_query_device_awareness(void)
{
    return shoal.cfg.enable_device_awareness && shoal_dev != NULL;
}
SHOAL_PROFILED(shmem_query_device_awareness)

void *shmalloc(size_t size)
{
    return shmem_malloc(size);
}
SHOAL_PROFILED(shmalloc)
void shfree(void *ptr)
{
    shmem_free(ptr);
}
SHOAL_PROFILED(shfree)
void *shrealloc(void *ptr, size_t size)
{
    return shmem_realloc(ptr, size);
}
SHOAL_PROFILED(shrealloc)
void *shmemalign(size_t alignment, size_t size)
{
    return shmem_align(alignment, size);
}
SHOAL_PROFILED(shmemalign)
