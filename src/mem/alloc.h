/* Deterministic offset allocator for the symmetric heap.
 *
 * Every PE issues the same sequence of calls and must get the same offsets, so
 * the result is a pure function of that sequence: no addresses, randomness or
 * timing. The bookkeeping lives in process-private malloc'd memory, never in
 * the heap itself, so remote writes into the heap cannot corrupt it.
 * Offsets lie in [0, heap_size); granularity is 16 bytes. Not thread-safe: the
 * caller serialises calls (they are collective anyway). */
#ifndef SHOAL_MEM_ALLOC_H
#define SHOAL_MEM_ALLOC_H

#include <stddef.h>

#define SHOAL_ALLOC_FAIL ((size_t)-1)

struct shoal_alloc;

/* heap_size is rounded down to a multiple of 16 (the tail could never hold a
 * block). NULL on OOM. */
struct shoal_alloc *shoal_alloc_create(size_t heap_size);
void shoal_alloc_destroy(struct shoal_alloc *a);

/* Offset of a block of at least size bytes whose offset is a multiple of align
 * (a power of two; 0 and values below 16 mean 16, so a block suits any type).
 * SHOAL_ALLOC_FAIL when no free range fits, when align is not a power of two,
 * or when bookkeeping memory runs out. size 0 is the caller's business. */
size_t shoal_alloc_get(struct shoal_alloc *a, size_t size, size_t align);

/* Frees the block starting at off: 0, or -1 if off is not the start of a live block. */
int shoal_alloc_put(struct shoal_alloc *a, size_t off);

/* Size, as requested, of the live block at off; 0 if off does not start one. */
size_t shoal_alloc_size(const struct shoal_alloc *a, size_t off);

/* Start of the live block whose requested bytes [start, start + size) contain
 * off, or SHOAL_ALLOC_FAIL. */
size_t shoal_alloc_find(const struct shoal_alloc *a, size_t off);

/* Resizes the block at off in place: shrinking always works, growing works if
 * the free range right after it is big enough. 0 on success; -1 if off does not
 * start a live block, new_size is 0, or it cannot be done in place (the caller
 * then allocates anew, copies and frees). */
int shoal_alloc_resize(struct shoal_alloc *a, size_t off, size_t new_size);

struct shoal_alloc_stats {
    size_t heap_size;  /* managed bytes (after rounding down to 16) */
    size_t bytes_used; /* live blocks, rounded up to 16: used + free == heap_size */
    size_t bytes_free;
    size_t largest_free; /* longest free range (before any alignment padding) */
    size_t live_blocks;
    size_t free_ranges;
};
void shoal_alloc_stats(const struct shoal_alloc *a, struct shoal_alloc_stats *st);

#endif
