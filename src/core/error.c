/* Error and warning reporting. Messages name the PE, the routine and the remedy. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/error.h"
#include "core/state.h"

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
    fflush(stdout);
    fprintf(stderr, "%s\n", buf);
}

void shoal_fatal(const char *routine, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vformat("", routine, fmt, ap, buf, sizeof buf);
    va_end(ap);
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
                    shoal.ever_initialized ? "after shmem_finalize and before another" : "before");
}

void shoal_bad_addr(const char *routine, const void *addr, int pe)
{
    (void)pe;
    shoal_require_init(routine);
    shoal_fatal(routine, "address %p is not symmetric (neither in the symmetric heap nor in "
                "the program's global/static data); allocate it with shmem_malloc or make it "
                "a global", addr);
}

void shoal_check_range(const char *routine, const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    for (int s = 0; s < SHOAL_NSEGS; s++) {
        const struct shoal_seg *seg = &shoal.seg[s];
        if (a - seg->base < seg->size) {
            if (len > seg->size - (a - seg->base))
                shoal_fatal(routine, "%zu bytes at %p run past the end of the symmetric %s",
                            len, addr, s == SHOAL_SEG_HEAP ? "heap" : "static data");
            return;
        }
    }
}
