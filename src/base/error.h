/* Fatal errors and warnings: "shoal: PE n: routine: message; remedy". Every layer
 * reports through these (base/error.c). */
#ifndef SHOAL_ERROR_H
#define SHOAL_ERROR_H

#include <stddef.h>

#include "env/compiler.h"

/* Prints the message and ends the whole job. The attribute, not _Noreturn, so that
 * clang too lets it fill the noreturn pointer of transport/module.h's host table. */
__attribute__((noreturn, format(printf, 2, 3))) void shoal_fatal(const char *routine,
                                                                 const char *fmt, ...);
void shoal_warn(const char *routine, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Ends the job unless shmem_init has been called and not yet finalized. */
void shoal_require_init(const char *routine);
_Noreturn void shoal_bad_addr(const char *routine, const void *addr, int pe);
/* Ends the job when [addr, addr + len) runs past the end of the symmetric segment
 * addr is in; returns for an address outside every segment. */
void shoal_check_range(const char *routine, const void *addr, size_t len);
/* Checks nblocks blocks of blen bytes at symmetric addr, stride elements of esize
 * bytes apart (either sign): all within addr's segment, or the job ends. Once per
 * strided call, so always on. */
void shoal_check_strided(const char *routine, const void *addr, ptrdiff_t stride,
                         size_t nblocks, size_t blen, size_t esize);

#endif
