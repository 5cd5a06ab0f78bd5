/* Queries about the job and about symmetric addresses. */
#include <string.h>

#include "api/api.h"

int shmem_my_pe(void)
{
    shoal_require_init("shmem_my_pe");
    return shoal.my_pe;
}
SHOAL_PROFILED(shmem_my_pe)

int shmem_n_pes(void)
{
    shoal_require_init("shmem_n_pes");
    return shoal.n_pes;
}
SHOAL_PROFILED(shmem_n_pes)

int _my_pe(void)
{
    return shmem_my_pe();
}
SHOAL_PROFILED(_my_pe)
int _num_pes(void)
{
    return shmem_n_pes();
}
SHOAL_PROFILED(_num_pes)

int shmem_pe_accessible(int pe)
{
    shoal_require_init("shmem_pe_accessible");
    return pe >= 0 && pe < shoal.n_pes;
}
SHOAL_PROFILED(shmem_pe_accessible)

int shmem_addr_accessible(const void *addr, int pe)
{
    shoal_require_init("shmem_addr_accessible");
    uint64_t off;
    return pe >= 0 && pe < shoal.n_pes && shoal_seg_of(addr, &off) >= 0;
}
SHOAL_PROFILED(shmem_addr_accessible)

void *shmem_ptr(const void *dest, int pe)
{
    shoal_require_init("shmem_ptr");
    if (pe < 0 || pe >= shoal.n_pes)
        return NULL;
    struct shoal_rref r;
    if (shoal_resolve(dest, pe, &r) < 0)
        return NULL;
    /* A device-heap object of a same-node PE: the device pointer of its IPC mapping,
     * valid for device code and device copies, never for host loads and stores. */
    if (r.seg == SHOAL_SEG_DEVICE)
        return shoal_tp.dev_peer[pe] ? shoal_tp.dev_peer[pe] + r.off : NULL;
    return r.ptr;
}
SHOAL_PROFILED(shmem_ptr)

void shmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
SHOAL_PROFILED(shmem_info_get_version)

void shmem_info_get_name(char *name)
{
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
SHOAL_PROFILED(shmem_info_get_name)
