/* The symmetric heap on the pages it was asked for: every PE fills an array that
 * spans several 2 MiB pages and ends in the heap's last page (the part huge pages
 * round the heap up to), then checks its right neighbour's through shmem_ptr loads
 * where the neighbour is on this node and shmem_getmem always, a put into its left
 * neighbour's, and a fetch-add from every PE to a counter on every PE. Then it reads
 * /proc/self/smaps for the kind of pages its own heap and its mappings of the
 * same-node peers' heaps really are on.
 *   api.hugepages KIND [PAGE_KB]
 * KIND: hugetlb (reserved pages of PAGE_KB, default 2048), thp (transparent ones,
 * mapped by the page table's huge entries), normal (neither), any (PEs may differ:
 * a pool too small for all). hugepages.sh runs it with SHMEM_SYMMETRIC_SIZE=4M, which
 * holds the 5 MiB array only once the heap is rounded up to whole huge pages. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define ARRAY_BYTES ((size_t)5 << 20)
#define BLOCK 512 /* longs put into the left neighbour */

/* The value of KEY (in kB) in the smaps entry of the mapping holding addr; -1 if
 * the mapping or the key is missing. */
static long smaps_kb(const void *addr, const char *key)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int inside = 0;
    long v = -1;
    size_t klen = strlen(key);
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        /* A mapping's first line starts "lo-hi "; no "Key:" line parses so. */
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            inside = a >= lo && a < hi;
            continue;
        }
        if (inside && !strncmp(line, key, klen) && line[klen] == ':') {
            v = strtol(line + klen + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* Ends the job unless the mapping at addr (whose = "own heap" or a peer's) is on
 * pages of the kind asked for. */
static void check_pages(const void *addr, const char *whose, int peer, const char *kind,
                        long page_kb)
{
    long kps = smaps_kb(addr, "KernelPageSize");
    long pmd = smaps_kb(addr, "ShmemPmdMapped");
    int me = shmem_my_pe();
    if (kps < 0)
        check_failed(__FILE__, __LINE__, "no smaps entry for %s %d at %p", whose, peer, addr);
    int ok = 1;
    if (!strcmp(kind, "hugetlb"))
        ok = kps == page_kb;
    else if (!strcmp(kind, "thp"))
        ok = kps == 4 && pmd > 0;
    else if (!strcmp(kind, "normal"))
        ok = kps == 4 && pmd <= 0;
    if (!ok)
        check_failed(__FILE__, __LINE__,
                     "%s %d at %p: KernelPageSize %ld kB, ShmemPmdMapped %ld kB; expected "
                     "%s pages (page %ld kB): is the heap on the pages asked for?",
                     whose, peer, addr, kps, pmd, kind, page_kb);
    if (getenv("SHOAL_TEST_VERBOSE"))
        printf("PE %d: %s %d: KernelPageSize %ld kB, ShmemPmdMapped %ld kB\n", me, whose,
               peer, kps, pmd);
}

static long expect(int pe, size_t i)
{
    return (long)(((uint64_t)pe << 40) ^ (i * 2654435761u));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: api.hugepages hugetlb|thp|normal|any [PAGE_KB]\n");
        return 2;
    }
    const char *kind = argv[1];
    long page_kb = argc > 2 ? atol(argv[2]) : 2048;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    size_t nl = ARRAY_BYTES / sizeof(long);
    long *a = test_malloc(ARRAY_BYTES);
    long *in = test_malloc(BLOCK * sizeof(long));
    long *ctr = test_malloc((size_t)n * sizeof(long));
    for (size_t i = 0; i < nl; i++)
        a[i] = expect(me, i);
    memset(ctr, 0, (size_t)n * sizeof(long));
    shmem_barrier_all();

    int right = (me + 1) % n, left = (me + n - 1) % n;
    long *rp = shmem_ptr(a, right);
    if (rp)
        for (size_t i = 0; i < nl; i += 509)
            if (rp[i] != expect(right, i))
                check_failed(__FILE__, __LINE__,
                             "shmem_ptr load of PE %d's a[%zu]: %ld, "
                             "expected %ld",
                             right, i, rp[i], expect(right, i));
    long *got = malloc(ARRAY_BYTES);
    CHECK(got);
    shmem_getmem(got, a, ARRAY_BYTES, right);
    for (size_t i = 0; i < nl; i++)
        if (got[i] != expect(right, i))
            check_failed(__FILE__, __LINE__,
                         "shmem_getmem of PE %d's a[%zu]: %ld, "
                         "expected %ld",
                         right, i, got[i], expect(right, i));
    for (int i = 0; i < BLOCK; i++)
        got[i] = expect(me, (size_t)i + 7);
    shmem_putmem(in, got, BLOCK * sizeof(long), right);
    for (int pe = 0; pe < n; pe++)
        shmem_long_atomic_fetch_add(&ctr[me], 1, pe);
    shmem_barrier_all();
    for (int i = 0; i < BLOCK; i++)
        if (in[i] != expect(left, (size_t)i + 7))
            check_failed(__FILE__, __LINE__, "put from PE %d, element %d: %ld, expected %ld",
                         left, i, in[i], expect(left, (size_t)i + 7));
    for (int pe = 0; pe < n; pe++)
        if (ctr[pe] != 1)
            check_failed(__FILE__, __LINE__, "fetch-add counter of PE %d: %ld, expected 1",
                         pe, ctr[pe]);

    /* The whole heap is one mapping: any address in it stands for it. */
    if (strcmp(kind, "any")) {
        check_pages(a, "own heap of PE", me, kind, page_kb);
        for (int pe = 0; pe < n; pe++) {
            long *p = shmem_ptr(a, pe);
            if (p && pe != me) {
                /* Touch every page through this mapping so that its entries exist. */
                volatile long sum = 0;
                for (size_t i = 0; i < nl; i += 512)
                    sum += p[i];
                (void)sum;
                check_pages(p, "this PE's mapping of the heap of PE", pe, kind, page_kb);
            }
        }
    }
    free(got);
    shmem_barrier_all();
    if (me == 0)
        printf("test_hugepages: %d PEs OK (%s)\n", n, kind);
    shmem_finalize();
    return 0;
}
