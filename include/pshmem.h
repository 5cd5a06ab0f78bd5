/* pshmem.h: the profiling interface. Every routine of shmem.h also exists under a
 * pshmem_ name, so a tool can define shmem_X itself and call pshmem_X. */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Shoal builds with hidden visibility; what is declared here is the exported ABI. */
#pragma GCC visibility push(default)

#define SHOAL_API(name) pshmem_##name
#include <shoal/api.h>
#undef SHOAL_API

void pstart_pes(int npes);
int p_my_pe(void);
int p_num_pes(void);
void *pshmalloc(size_t size);
void pshfree(void *ptr);
void *pshrealloc(void *ptr, size_t size);
void *pshmemalign(size_t alignment, size_t size);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
