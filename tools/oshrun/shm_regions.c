/* What a dead PE left in /dev/shm. libfabric's shm provider keeps each endpoint's
 * queues in a region there named "PID:UID:N" (the PE's pid and uid, the endpoint's
 * index), 16 MB each, and unlinks it only when the endpoint is closed: a PE killed,
 * or exiting without shmem_finalize, leaves its regions behind for good. */
#include "oshrun.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One or more ":DIGITS" fields and nothing else: the provider's suffix. */
static bool numeric_fields(const char *s)
{
    if (!*s)
        return false;
    while (*s) {
        if (*s++ != ':' || *s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return true;
}

static bool older(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Called while the PE is a zombie, so that no other process here can hold its pid
 * yet. Removes only regular files (never what a symlink points to) named for that
 * pid, owned by oshrun's user and made since the PE started: not one left by an
 * earlier process of that pid, nor an older one of a process that has the same pid
 * in another pid namespace sharing /dev/shm. The directory is sticky, so nobody else can swap such a file
 * between the check and the unlink. */
void remove_pe_regions(const struct pe *pe)
{
    int dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    DIR *d = fdopendir(dir);
    if (!d) {
        close(dir);
        return;
    }
    char prefix[24];
    size_t plen = (size_t)snprintf(prefix, sizeof prefix, "%d", (int)pe->pid);
    uid_t me = geteuid();
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (strncmp(e->d_name, prefix, plen) || !numeric_fields(e->d_name + plen))
            continue;
        if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
            st.st_uid != me || older(&st.st_ctim, &pe->started))
            continue;
        unlinkat(dir, e->d_name, 0);
    }
    closedir(d);
}
