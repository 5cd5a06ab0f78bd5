/* Creating the symmetric heap. Each PE backs its segments with memfds, which the shm
 * transport (transport/shm/shm.c) hands to the same-node peers to map; nothing is
 * ever named in /dev/shm. Asked for huge pages, the heap takes reserved ones
 * (a hugetlb memfd) where the pool has enough, else transparent ones on a normal
 * memfd where the kernel allows them for shared memory, else normal pages. */
#include <errno.h>
#include <fcntl.h>
#include <linux/memfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mapping.h"
#include "base/state.h"
#include "env/log.h"
#include "mem/segment.h"

struct shoal_alloc *shoal_heap_alloc;

struct seg_card {
    int32_t pid;
    int32_t fd[SHOAL_NHOST_SEGS];
    uint64_t size[SHOAL_NHOST_SEGS];
};

int shoal_memfd(const char *name, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        shoal_warn("shmem_init", "memfd_create failed: %s", strerror(errno));
        return -1;
    }
    if (size && ftruncate(fd, (off_t)size) != 0) {
        shoal_warn("shmem_init", "cannot size shared memory to %zu bytes: %s", size,
                   strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

#define HUGETLB_DIR "/sys/kernel/mm/hugepages"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* Why the heap is on normal pages though huge ones were asked for, said by
 * shoal_heap_report once the node's PEs are known; pool_short: the machine has
 * reserved pages, but too few were left for this PE. */
static char heap_fallback[900];
static int heap_pool_short;

static long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* The selected word of a THP control file ("always [advise] never"), "" if none. */
static void thp_word(const char *path, char *out, size_t n)
{
    char line[160] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
    }
    const char *a = strchr(line, '[');
    const char *b = a ? strchr(a, ']') : NULL;
    size_t len = b ? (size_t)(b - a - 1) : 0;
    if (len >= n)
        len = 0;
    memcpy(out, a ? a + 1 : "", len);
    out[len] = 0;
}

/* The kernel's transparent huge page setting for shared memory at this page size:
 * the per-size control where the kernel has one and it does not defer to the
 * global one; "" where the kernel has no such size. */
static void thp_shmem_mode(size_t page, char *mode, size_t n)
{
    char top[32], per[32], path[128];
    thp_word(THP_DIR "/shmem_enabled", top, sizeof top);
    snprintf(path, sizeof path, THP_DIR "/hugepages-%zukB/shmem_enabled", page >> 10);
    thp_word(path, per, sizeof per);
    int pmd = read_long(THP_DIR "/hpage_pmd_size") == (long)page;
    const char *m = "";
    if (!strcmp(top, "deny") || !strcmp(top, "force"))
        m = top; /* the global emergency and test settings override every size */
    else if (per[0] && strcmp(per, "inherit"))
        m = per;
    else if (per[0] || pmd)
        m = top;
    snprintf(mode, n, "%s", m);
}

static int thp_allows(const char *mode)
{
    return !strcmp(mode, "always") || !strcmp(mode, "within_size") ||
            !strcmp(mode, "advise") || !strcmp(mode, "force");
}

/* "2 MiB", "1 GiB", "64 KiB". */
static const char *page_name(size_t page, char *buf, size_t n)
{
    if (page >= ((size_t)1 << 30) && !(page & (((size_t)1 << 30) - 1)))
        snprintf(buf, n, "%zu GiB", page >> 30);
    else if (page >= ((size_t)1 << 20) && !(page & (((size_t)1 << 20) - 1)))
        snprintf(buf, n, "%zu MiB", page >> 20);
    else
        snprintf(buf, n, "%zu KiB", page >> 10);
    return buf;
}

/* Backs the heap with reserved huge pages (1), transparent ones (2) or neither (0),
 * and maps it at *p; the mapping reserves the hugetlb pages at once, so that a pool
 * too small shows here rather than as SIGBUS on a later first touch. */
static int huge_heap_map(struct shoal_seg *out, size_t page, void **p)
{
    char pool[96], name[32], mode[32], why_pool[200], why_thp[160];
    snprintf(pool, sizeof pool, HUGETLB_DIR "/hugepages-%zukB", page >> 10);
    page_name(page, name, sizeof name);
    int shift = __builtin_ctzl(page);
    int fd = memfd_create("shoal-heap",
                          MFD_CLOEXEC | MFD_HUGETLB | (unsigned)(shift << MFD_HUGE_SHIFT));
    if (fd >= 0 && ftruncate(fd, (off_t)out->size) == 0) {
        *p = shoal_map_aligned(fd, out->size, SHOAL_HEAP_BASE_ALIGN, 0);
        if (*p != MAP_FAILED) {
            out->fd = fd;
            return 1;
        }
    }
    int herr = errno;
    if (fd >= 0)
        close(fd);
    char path[160];
    snprintf(path, sizeof path, "%s/nr_hugepages", pool);
    long total = read_long(path);
    snprintf(path, sizeof path, "%s/free_hugepages", pool);
    long avail = read_long(path);
    snprintf(path, sizeof path, "%s/resv_hugepages", pool);
    avail -= read_long(path);
    heap_pool_short = total > 0;
    if (total < 0)
        snprintf(why_pool, sizeof why_pool, "the kernel has no pool of %s pages (%s)", name,
                 pool);
    else if (total == 0)
        snprintf(why_pool, sizeof why_pool, "none are reserved (%s/nr_hugepages is 0)", pool);
    else if ((size_t)avail < out->size / page)
        snprintf(why_pool, sizeof why_pool,
                 "%ld of the %ld reserved (%s/nr_hugepages) are free, %zu needed", avail,
                 total, pool, out->size / page);
    else /* enough free, yet refused: a cgroup's hugetlb limit, or a race with another job */
        snprintf(why_pool, sizeof why_pool, "the kernel refused %zu of its %ld free: %s",
                 out->size / page, avail, strerror(herr));

    thp_shmem_mode(page, mode, sizeof mode);
    if (thp_allows(mode)) {
        out->fd = shoal_memfd("shoal-heap", out->size);
        if (out->fd < 0)
            return -1;
        *p = shoal_map_aligned(out->fd, out->size, SHOAL_HEAP_BASE_ALIGN, MAP_NORESERVE);
        if (*p == MAP_FAILED)
            return 0; /* the caller reports it */
        if (madvise(*p, out->size, MADV_HUGEPAGE) == 0)
            return 2;
        snprintf(why_thp, sizeof why_thp, "madvise(MADV_HUGEPAGE) refused: %s",
                 strerror(errno));
        munmap(*p, out->size);
        close(out->fd);
    } else if (mode[0]) {
        snprintf(why_thp, sizeof why_thp,
                 "transparent huge pages are off for shared memory (" THP_DIR
                 "/shmem_enabled is %s; advise would do)",
                 mode);
    } else {
        snprintf(why_thp, sizeof why_thp, "the kernel has no transparent %s pages", name);
    }
    snprintf(heap_fallback, sizeof heap_fallback,
             "SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES is set, but this machine has no %s huge "
             "pages to give: %s, and %s; the heap uses %ld KiB pages. Reserve some (as "
             "root: echo N > %s/nr_hugepages), allow transparent ones, or unset the "
             "variable",
             name, why_pool, why_thp, sysconf(_SC_PAGESIZE) >> 10, pool);
    out->fd = shoal_memfd("shoal-heap", out->size);
    if (out->fd < 0)
        return -1;
    *p = shoal_map_aligned(out->fd, out->size, SHOAL_HEAP_BASE_ALIGN, MAP_NORESERVE);
    return 0;
}

int shoal_heap_create(struct shoal_seg *out, size_t size)
{
    size_t sys = (size_t)sysconf(_SC_PAGESIZE);
    size_t page = sys;
    heap_fallback[0] = 0; /* a later shmem_init after finalize says its own */
    heap_pool_short = 0;
    if (shoal.cfg.symmetric_heap_use_huge_pages) {
        page = shoal.cfg.symmetric_heap_page_size;
        if (page <= sys || (page & (page - 1)) || page > SHOAL_HEAP_BASE_ALIGN)
            shoal_fatal("shmem_init",
                        "SHMEM_SYMMETRIC_HEAP_PAGE_SIZE=%zu is not a huge page size: use a "
                        "power of two above the system's %zu-byte page and at most 1G, one "
                        "the kernel lists in " HUGETLB_DIR " (2M, 1G)",
                        page, sys);
    }
    /* Every PE rounds alike, whatever pages it got, so same-node peers agree on sizes. */
    size_t rounded = (size + page - 1) & ~(page - 1);
    if (rounded < size)
        return -1;
    *out = (struct shoal_seg){ .size = rounded, .fd = -1 };
    void *p = MAP_FAILED;
    int kind = 0;
    /* shmem_align works on heap offsets, so the base must be aligned at least as
     * strictly as any alignment a program asks for. */
    if (page > sys) {
        SHOAL_LOG(MEM, DEBUG, "heap of %zu bytes: %zu-byte huge pages asked for", rounded,
                  page);
        kind = huge_heap_map(out, page, &p);
        if (kind < 0)
            return -1;
    } else {
        SHOAL_LOG(MEM, DEBUG, "heap of %zu bytes: a memfd of %zu-byte pages", rounded, sys);
        out->fd = shoal_memfd("shoal-heap", rounded);
        if (out->fd < 0)
            return -1;
        p = shoal_map_aligned(out->fd, rounded, SHOAL_HEAP_BASE_ALIGN, MAP_NORESERVE);
    }
    if (p == MAP_FAILED) {
        SHOAL_LOG(MEM, DEBUG, "heap of %zu bytes: mapping failed (%s)", rounded,
                  strerror(errno));
        shoal_warn("shmem_init",
                   "cannot map a %zu-byte symmetric heap: %s; lower "
                   "SHMEM_SYMMETRIC_SIZE",
                   rounded, strerror(errno));
        close(out->fd);
        out->fd = -1;
        return -1;
    }
    out->base = (uintptr_t)p;
    out->page = kind ? page : 0;
    out->thp = kind == 2;
    char name[32];
    SHOAL_LOG(MEM, INFO, "heap on %s pages of %s",
              kind == 1           ? "reserved huge (hugetlb)"
                      : kind == 2 ? "transparent huge"
                                  : "normal",
              page_name(kind ? page : sys, name, sizeof name));
    return 0;
}

void shoal_heap_report(int node_first)
{
    if (heap_fallback[0] && (node_first || heap_pool_short))
        shoal_warn("shmem_init", "%s", heap_fallback);
}

void shoal_heap_destroy(void)
{
    /* The heap's own mapping goes; static data stays mapped (the program still uses it). */
    if (shoal.seg[SHOAL_SEG_HEAP].base)
        munmap((void *)shoal.seg[SHOAL_SEG_HEAP].base, shoal.seg[SHOAL_SEG_HEAP].size);
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++)
        shoal.seg[s] = (struct shoal_seg){ .fd = -1 };
}
