/* Error and warning reporting. Messages name the PE, the routine and the remedy. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "env/env.h"
#include "base/error.h"
#include "base/state.h"

static void vformat(const char *kind, const char *routine, const char *fmt, va_list ap,
                    char *buf, size_t len)
{
    int n = 0;
    if (shoal.n_pes > 0)
        n = snprintf(buf, len, "shoal: PE %d: %s%s%s", shoal.my_pe, kind, routine, ": ");
    else
        n = snprintf(buf, len, "shoal: %s%s%s", kind, routine, ": ");
    if (n > 0 && (size_t)n < len)
        vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

/* Program output first, so the message lands after what the PE already printed. */
static void emit(const char *buf)
{
    FILE *out = shoal_error_stream();
    fflush(stdout);
    fprintf(out, "%s\n", buf);
    fflush(out);
}

void shoal_fatal(const char *routine, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vformat("", routine, fmt, ap, buf, sizeof buf);
    va_end(ap);
    /* SHMEM_ABORT_ON_ERROR: a core to look at; the launcher sees the PE die of it. */
    if (shoal.cfg.abort_on_error) {
        emit(buf);
        abort();
    }
    if (shoal.boot)
        shoal.boot->abort(1, buf);
    emit(buf);
    _exit(1);
}

void shoal_warn(const char *routine, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vformat("warning: ", routine, fmt, ap, buf, sizeof buf);
    va_end(ap);
    emit(buf);
}

void shoal_require_init(const char *routine)
{
    if (SHOAL_UNLIKELY(shoal.init_count <= 0))
        shoal_fatal(routine, "called %s shmem_init; call shmem_init first",
                    shoal.ever_initialized ? "after shmem_finalize and before another"
                                           : "before");
}

void shoal_bad_addr(const char *routine, const void *addr, int pe)
{
    (void)pe;
    shoal_require_init(routine);
    shoal_fatal(routine,
                "address %p is not symmetric (neither in the symmetric heap nor in "
                "the program's global/static data); allocate it with shmem_malloc or make it "
                "a global",
                addr);
}

static const char *seg_name(int s)
{
    return s == SHOAL_SEG_HEAP      ? "heap"
            : s == SHOAL_SEG_DEVICE ? "device heap"
                                    : "static data";
}

void shoal_check_range(const char *routine, const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    for (int s = 0; s < SHOAL_NSEGS; s++) {
        const struct shoal_seg *seg = &shoal.seg[s];
        if (a - seg->base < seg->size) {
            if (len > seg->size - (a - seg->base))
                shoal_fatal(routine,
                            "%zu bytes at %p run past the end of the symmetric %s "
                            "(%zu bytes from there to its end); check the length",
                            len, addr, seg_name(s), seg->size - (size_t)(a - seg->base));
            return;
        }
    }
}

void shoal_check_strided(const char *routine, const void *addr, ptrdiff_t stride,
                         size_t nblocks, size_t blen, size_t esize)
{
    uint64_t off;
    int s = shoal_seg_of(addr, &off);
    if (s < 0)
        shoal_bad_addr(routine, addr, -1);
    if (nblocks == 0)
        return;
    /* Offsets of the first and last block from the segment's start, and the end of
     * the highest block, in 128-bit arithmetic so that nothing wraps. */
    __int128 last = (__int128)off + (__int128)(nblocks - 1) * stride * (__int128)esize;
    __int128 lo = last < (__int128)off ? last : (__int128)off;
    __int128 hi = (last > (__int128)off ? last : (__int128)off) + (__int128)blen;
    if (lo < 0)
        shoal_fatal(routine,
                    "%zu blocks at stride %td (elements of %zu bytes) from %p start "
                    "before the symmetric %s; check the stride and the count",
                    nblocks, stride, esize, addr, seg_name(s));
    if (hi > (__int128)shoal.seg[s].size)
        shoal_fatal(routine,
                    "%zu blocks of %zu bytes at stride %td (elements of %zu bytes) "
                    "from %p run past the end of the symmetric %s (%zu bytes from there to "
                    "its end); check the stride and the count",
                    nblocks, blen, stride, esize, addr, seg_name(s),
                    shoal.seg[s].size - (size_t)off);
}
