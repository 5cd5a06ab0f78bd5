/* The symmetric allocation routines. Each is collective over the world team: every
 * PE runs the same deterministic allocator (mem/alloc.c) on the same call sequence,
 * so the same offset comes back everywhere, and a barrier publishes the result. */
#include <stdio.h>
#include <string.h>

#include <shmemx.h>

#include "api/api.h"
#include "coll/coll_common.h"
#include "mem/alloc.h"
#include "mem/segment.h"

/* SHMEM_DEBUG: every PE must pass the same arguments (coll/coll.c compares them over
 * the world team). Without SHMEM_DEBUG one predictable branch. A call that does nothing
 * (size 0, shmem_free(NULL)) does not communicate, with or without SHMEM_DEBUG, so a
 * PE that passes 0 where the others pass a size is not caught: they wait for it. */
static void agree(const char *fn, const struct coll_arg *args, int nargs)
{
    struct coll c;
    if (coll_team_begin(fn, SHMEM_TEAM_WORLD, &c) == 0 && c.n > 1)
        coll_debug_agree(fn, &c, args, nargs);
}
#define AGREE(fn, acts, ...)                                                        \
    do {                                                                            \
        if (SHOAL_UNLIKELY(shoal.cfg.debug) && (acts)) {                            \
            const struct coll_arg agree_[] = { __VA_ARGS__ };                       \
            agree(fn, agree_, (int)(sizeof agree_ / sizeof *agree_));               \
        }                                                                           \
    } while (0)

/* A block's heap offset for the comparison, -1 for NULL or a pointer outside the heap
 * (heap_offset rejects those afterwards). */
static int64_t agree_offset(const void *ptr)
{
    uintptr_t off = (uintptr_t)ptr - shoal.seg[SHOAL_SEG_HEAP].base;
    return ptr && off < shoal.seg[SHOAL_SEG_HEAP].size ? (int64_t)off : -1;
}
#define PTR_ARG(ptr) COLL_ARG_INT("ptr (as an offset into the heap; -1: NULL or not in it)", \
                                  agree_offset(ptr))

static void *heap_ptr(size_t off)
{
    return (void *)(shoal.seg[SHOAL_SEG_HEAP].base + off);
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

static void *heap_exhausted(const char *routine, size_t size)
{
    char now[32];
    struct shoal_alloc_stats st;
    shoal_alloc_stats(shoal.heap_alloc, &st);
    human_size(shoal.cfg.symmetric_size, now, sizeof now);
    shoal_warn(routine, "%zu bytes requested, symmetric heap exhausted (largest free block "
               "%zu bytes); raise SHMEM_SYMMETRIC_SIZE (now %s)", size, st.largest_free, now);
    return NULL;
}

static void *heap_alloc_sync(const char *routine, size_t size, size_t align, int zero,
                             int barrier)
{
    shoal_require_init(routine);
    if (size == 0)
        return NULL;
    size_t off = shoal_alloc_get(shoal.heap_alloc, size, align);
    void *p = off == SHOAL_ALLOC_FAIL ? heap_exhausted(routine, size) : heap_ptr(off);
    if (p && zero)
        memset(p, 0, size);
    if (barrier)
        shoal_barrier_world();
    return p;
}

static void *heap_alloc(const char *routine, size_t size, size_t align, int zero)
{
    return heap_alloc_sync(routine, size, align, zero, 1);
}

void *shmem_malloc(size_t size)
{
    AGREE("shmem_malloc", size, COLL_ARG_SIZE("size", size));
    return heap_alloc("shmem_malloc", size, 16, 0);
}
SHOAL_PROFILED(shmem_malloc)

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* The standard hints are performance hints and one heap serves them all; the
     * deterministic allocator needs no barrier to agree, so SHMEMX_MALLOC_NO_BARRIER
     * can drop it and leave ordering to the caller. */
    AGREE("shmem_malloc_with_hints", size, COLL_ARG_SIZE("size", size));
    return heap_alloc_sync("shmem_malloc_with_hints", size, 16, 0,
                           !(hints & SHMEMX_MALLOC_NO_BARRIER));
}
SHOAL_PROFILED(shmem_malloc_with_hints)

void *shmem_calloc(size_t count, size_t size)
{
    AGREE("shmem_calloc", count && size, COLL_ARG_SIZE("count", count),
          COLL_ARG_SIZE("size", size));
    if (count && size > SIZE_MAX / count) {
        shoal_require_init("shmem_calloc");
        return heap_exhausted("shmem_calloc", SIZE_MAX);
    }
    return heap_alloc("shmem_calloc", count * size, 16, 1);
}
SHOAL_PROFILED(shmem_calloc)

void *shmem_align(size_t alignment, size_t size)
{
    AGREE("shmem_align", size, COLL_ARG_SIZE("alignment", alignment),
          COLL_ARG_SIZE("size", size));
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment % sizeof(void *)) {
        shoal_require_init("shmem_align");
        shoal_warn("shmem_align", "alignment %zu is not a power of two multiple of %zu; "
                   "returning NULL", alignment, sizeof(void *));
        return NULL;
    }
    if (alignment > SHOAL_HEAP_BASE_ALIGN) {
        shoal_require_init("shmem_align");
        shoal_warn("shmem_align", "alignment %zu exceeds the largest supported (%zu); "
                   "returning NULL", alignment, SHOAL_HEAP_BASE_ALIGN);
        return NULL;
    }
    return heap_alloc("shmem_align", size, alignment, 0);
}
SHOAL_PROFILED(shmem_align)

static size_t heap_offset(const char *routine, const void *ptr)
{
    uintptr_t off = (uintptr_t)ptr - shoal.seg[SHOAL_SEG_HEAP].base;
    if (off >= shoal.seg[SHOAL_SEG_HEAP].size || shoal_alloc_size(shoal.heap_alloc, off) == 0)
        shoal_fatal(routine, "%p was not returned by shmem_malloc/shmem_calloc/shmem_align/"
                    "shmem_realloc, or was already freed", ptr);
    return off;
}

void shmem_free(void *ptr)
{
    shoal_require_init("shmem_free");
    AGREE("shmem_free", ptr, PTR_ARG(ptr));
    if (!ptr)
        return;
    size_t off = heap_offset("shmem_free", ptr);
    shoal_barrier_world();
    shoal_alloc_put(shoal.heap_alloc, off);
}
SHOAL_PROFILED(shmem_free)

void *shmem_realloc(void *ptr, size_t size)
{
    AGREE("shmem_realloc", ptr || size, PTR_ARG(ptr), COLL_ARG_SIZE("size", size));
    if (!ptr)
        return heap_alloc("shmem_realloc", size, 16, 0);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    shoal_require_init("shmem_realloc");
    size_t off = heap_offset("shmem_realloc", ptr);
    size_t old = shoal_alloc_size(shoal.heap_alloc, off);
    /* Every PE has finished touching the old block before any moves it. */
    shoal_barrier_world();
    void *res = ptr;
    if (shoal_alloc_resize(shoal.heap_alloc, off, size)) {
        size_t noff = shoal_alloc_get(shoal.heap_alloc, size, 16);
        if (noff == SHOAL_ALLOC_FAIL) {
            res = heap_exhausted("shmem_realloc", size);
        } else {
            memcpy(heap_ptr(noff), ptr, old < size ? old : size);
            shoal_alloc_put(shoal.heap_alloc, off);
            res = heap_ptr(noff);
        }
    }
    shoal_barrier_world();
    return res;
}
SHOAL_PROFILED(shmem_realloc)

void *shmalloc(size_t size) { return shmem_malloc(size); }
SHOAL_PROFILED(shmalloc)
void shfree(void *ptr) { shmem_free(ptr); }
SHOAL_PROFILED(shfree)
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
SHOAL_PROFILED(shrealloc)
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
SHOAL_PROFILED(shmemalign)
