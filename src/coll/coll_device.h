/* Collectives whose buffers are device memory (a device-space object, or with device
 * awareness a device buffer of the program). Most go device to device (below); for
 * the rest, whose algorithms copy and reduce with the CPU, the members run the same host collective on a symmetric host staging area
 * (SHOAL_DEV_STAGE_BYTES per team slot, one more for active sets, reserved with the
 * device heap), one chunk at a time:
 *
 *   copy the chunk of each source block out of the device into the staging's "in";
 *   run the host collective from "in" to the staging's "out" (and "wrk");
 *   copy each block's chunk from "out" into the device dest;
 *   a barrier of the members, so that the staging may be reused.
 *
 * One engine does this for every collective; a collective describes where its blocks
 * lie (struct coll_dev_side) and names the host call:
 *
 *   COLL_DEV_STAGED(st, fn, &c, nelems, esize, coll_dev_one(source),
 *                   coll_dev_one(dest), 0)
 *       team_reduce(fn, team, st.out, st.in, st.m, esize, ...);
 *
 * In "in" and "out" the chunks of the blocks lie packed, block b at b * st.m elements,
 * as the host collective on st.m elements per block expects them. An active set has no
 * team slot: its members share one staging part and take a barrier before each chunk
 * too, since a PE may still be copying out of its staging for an earlier set when a
 * peer starts the next (so two threads of one PE must not run active-set collectives
 * on device memory at once). */
#ifndef SHOAL_COLL_DEVICE_H
#define SHOAL_COLL_DEVICE_H

#include "coll/coll_common.h"

/* Where one side's blocks lie: block b starts at off[b] bytes into buf (or b *
 * block_stride), holds len[b] elements (or the collective's nelems), elem_stride
 * bytes apart (0: esize, contiguous). buf NULL: this member copies nothing on this
 * side (a broadcast's non-root source). */
struct coll_dev_side {
    char *buf;
    int blocks;
    ptrdiff_t block_stride, elem_stride;
    const size_t *off, *len;
};

static inline struct coll_dev_side coll_dev_one(const void *buf)
{
    return (struct coll_dev_side){ (char *)buf, 1, 0, 0, NULL, NULL };
}

/* blocks blocks of contiguous elements, block_stride bytes apart. */
static inline struct coll_dev_side coll_dev_blocks(const void *buf, int blocks,
                                                   size_t block_stride)
{
    return (struct coll_dev_side){
        (char *)buf, blocks, (ptrdiff_t)block_stride, 0, NULL, NULL
    };
}

struct coll_dev {
    /* For the host collective: its source, dest and work array on the staging, and
     * the elements per block of this chunk. */
    char *in, *out, *wrk;
    size_t m;
    /* The engine's */
    const struct coll *c;
    struct coll_dev_side src, dst;
    size_t nelems, esize, per, at;
    int started;
};

/* Starts a staged collective of nelems elements (the longest block) of esize bytes,
 * with wrk blocks of work array; ends the job when there is no staging or a chunk
 * cannot hold one element of every block. */
struct coll_dev coll_dev_begin(const char *fn, const struct coll *c, size_t nelems,
                               size_t esize, struct coll_dev_side src,
                               struct coll_dev_side dst, int wrk);
/* Finishes the previous chunk (copy out, barrier), readies the next one (copy in);
 * 0 when there is none. */
int coll_dev_next(struct coll_dev *st);

#define COLL_DEV_STAGED(st, fn, c, nelems, esize, src, dst, wrk)                             \
    for (struct coll_dev st = coll_dev_begin(fn, c, nelems, esize, src, dst, wrk);           \
         coll_dev_next(&st);)

/* ---- device to device -----------------------------------------------------------
 * Collectives on device-space objects move their blocks from device to device: to a
 * member on this node by a device copy through its heap's mapping (IPC), to one on
 * another node by the device path's put or get (the NIC into the peer's registered
 * device heap, from pipelined host bounce buffers where it cannot read the local
 * device source); reductions combine with the device's own reduction
 * (shoal_dev_ops.reduce). A barrier before (every member's source ready, dest free)
 * and one after (every dest whole), none per chunk. coll_dev_direct says whether a
 * call may: dest a device-space object, source device memory (a device-space object
 * when sym_src, as the peers read it). Every member decides alike, since device-space
 * objects are symmetric. What remains (strided alltoalls, scans, a backend without a
 * device reduction) takes the staging engine above. */
int coll_dev_direct(const void *dest, const void *source, int sym_src);
/* Members pull len bytes from the root's source (a device-space object); the root
 * copies into its own dest too when root_too. */
void coll_dev_broadcast(const struct coll *c, void *dest, const void *source, size_t len,
                        int root, int root_too);
/* Each member's len bytes of source into every member's dest at byte at (fcollect:
 * at = me * len; collect: the sum of the lengths before it). */
void coll_dev_allput(const struct coll *c, void *dest, const void *source, size_t at,
                     size_t len);
/* Block j of len bytes of source into member j's dest, at block me. */
void coll_dev_alltoall(const struct coll *c, void *dest, const void *source, size_t len);
/* A reduction with the device's (kind, op: transport.h's); -1 when the backend has
 * none, before anything is done. */
int coll_dev_reduce(const struct coll *c, void *dest, const void *source, size_t nreduce,
                    size_t esize, int kind, int op);

/* a or b (either may be NULL) is device memory. */
int coll_dev_involved(const void *a, const void *b);

/* True when this collective must be staged: one branch when no device is in play. */
static inline int coll_dev_needed(const void *dest, const void *source)
{
    return SHOAL_UNLIKELY(shoal.dev_in_play) && coll_dev_involved(dest, source);
}

#endif
