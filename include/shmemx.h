/* shmemx.h: Shoal's extensions to OpenSHMEM. Every name here carries the shmemx_
 * prefix, as the specification requires of non-standard interfaces. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
