/* Makes the program's global and static variables symmetric: the writable part of
 * the executable's data segment (.data and .bss, past RELRO) is moved onto a memfd
 * mapping at the same address, so same-node peers can map it too. No kernel module,
 * no copies per access. */
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/error.h"
#include "base/state.h"
#include "mem/segment.h"

struct data_range {
    uintptr_t start, end;
};

static int find_exe_data(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct data_range *r = arg;
    uintptr_t relro_end = 0, load_start = 0, load_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            load_start = info->dlpi_addr + ph->p_vaddr;
            load_end = load_start + ph->p_memsz;
        } else if (ph->p_type == PT_GNU_RELRO) {
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    /* The loader makes RELRO read-only only up to the page boundary below its end. */
    uintptr_t start = load_start > relro_end ? load_start : relro_end;
    r->start = start & ~(page - 1);
    r->end = (load_end + page - 1) & ~(page - 1);
    return 1; /* the first object reported is the executable */
}

/* Word copy the sanitizers do not check: the data segment holds their redzones
 * between globals, and this copy must take the whole segment as it is. */
__attribute__((no_sanitize("address", "thread", "undefined"))) static void copy_segment(
        void *dst, const void *src, size_t len)
{
    volatile uint64_t *d = dst;
    const volatile uint64_t *s = src;
    for (size_t i = 0; i < len / sizeof(uint64_t); i++)
        d[i] = s[i];
}

int shoal_static_setup(struct shoal_seg *out)
{
    struct data_range r = { 0, 0 };
    dl_iterate_phdr(find_exe_data, &r);
    out->size = r.end > r.start ? r.end - r.start : 0;
    out->base = r.start;
    out->fd = -1;
    if (!out->size)
        return 0;
    int fd = shoal_memfd("shoal-static", out->size);
    if (fd < 0)
        return -1;
    /* Copy first, then swap the mapping in; nothing else runs during shmem_init. */
    void *tmp = mmap(NULL, out->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        shoal_warn("shmem_init", "cannot map static data's shared copy: %s", strerror(errno));
        close(fd);
        return -1;
    }
    copy_segment(tmp, (void *)r.start, out->size);
    munmap(tmp, out->size);
    void *p = mmap((void *)r.start, out->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                   fd, 0);
    if (p == MAP_FAILED) {
        shoal_fatal("shmem_init", "cannot remap static data at %p: %s", (void *)r.start,
                    strerror(errno));
    }
    out->fd = fd;
    return 0;
}
