/* The /dev/shm region of an endpoint of libfabric's shm provider. The provider
 * keeps each endpoint's queues in a region named "PID:UID:N" (the process's pid and
 * uid, the endpoint's index in the process), made when the endpoint is enabled and
 * removed when it is closed. A process killed before it closed its endpoints leaves
 * its regions behind (oshrun removes those of its own PEs; mpirun and srun do not),
 * and a later process given the same pid finds its region's name taken. libfabric
 * 1.17 then refuses the endpoint (fi_enable: EBUSY) when the file names a live
 * process, which with the pid recycled is the new process itself, or is not a
 * region; dies of SIGBUS reading a file shorter than a region's header; and takes
 * the file over only when it names a dead process. So the name of each endpoint is
 * cleared here, between fi_endpoint (which names it) and fi_enable; a file that may
 * not be removed (another user's, which anyone can plant for a pid and uid they
 * guess) makes the endpoint take a name of its own instead. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/ofi/ofi.h"

/* When this program was loaded (libshoal is loaded with it), by the clock file
 * times come from: a file made since has a ctime no earlier than this. */
static struct timespec loaded;

__attribute__((constructor)) static void note_load_time(void)
{
    clock_gettime(CLOCK_REALTIME_COARSE, &loaded);
}

/* "DIGITS:DIGITS:DIGITS", nothing else (no '/', so it names a file of /dev/shm). */
static int region_name(const char *s)
{
    for (int field = 0; field < 3; field++) {
        if (field && *s++ != ':')
            return 0;
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return !*s;
}

static const char prefix[] = "fi_shm://";

/* The endpoint's address as the provider writes it, NUL-terminated, and where
 * the region's name starts in it; NULL when it is not a region's name. */
static const char *get_addr(struct fid_ep *ep, char *addr, size_t len)
{
    size_t alen = len - 1;
    if (fi_getname(&ep->fid, addr, &alen) || alen >= len)
        return NULL;
    addr[alen] = '\0';
    const char *n =
            strncmp(addr, prefix, sizeof prefix - 1) ? addr : addr + sizeof prefix - 1;
    return region_name(n) ? n : NULL;
}

int ofi_shm_region_name(struct fid_ep *ep, char *name, size_t len)
{
    char addr[OFI_ADDR_MAX];
    const char *n = get_addr(ep, addr, sizeof addr);
    if (!n || strlen(n) >= len)
        return -1;
    strcpy(name, n);
    return 0;
}

int ofi_shm_region_rename(struct fid_ep *ep, char *name, size_t len)
{
    char addr[OFI_ADDR_MAX];
    const char *n = get_addr(ep, addr, sizeof addr);
    uint32_t r;
    if (!n || getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        return -1;
    /* PID:UID:N becomes PID:UID:R: still this pid's, so oshrun removes it should
     * the PE be killed, and an index no endpoint of the provider's numbering takes. */
    char *last = strrchr(addr, ':');
    size_t keep = (size_t)(last + 1 - addr);
    if (snprintf(last + 1, sizeof addr - keep, "%u", (r >> 1) | 0x40000000u) >=
                (int)(sizeof addr - keep) ||
        fi_setname(&ep->fid, addr, strlen(addr) + 1))
        return -1;
    return ofi_shm_region_name(ep, name, len);
}

static int older(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* A file of the name this process's endpoint is about to take is never this
 * process's own region: libfabric gives each endpoint of a process its own index.
 * No other process here has this pid, so the file was left by an earlier process
 * that had it and died without closing its endpoint (or made by a process of
 * another pid namespace sharing /dev/shm, which the documentation warns about).
 * Removed only when it is a regular file (fstatat does not follow a symlink, and
 * unlinkat removes the name, never what it points to), this user's, and made
 * before this program was loaded; /dev/shm is sticky, so no other user can swap
 * it between the check and the removal. */
int ofi_shm_region_clear(const char *name, char *why, size_t len)
{
    int dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return 0; /* no /dev/shm: libfabric says what it cannot do */
    struct stat st;
    int rc = 0;
    const char *bad = NULL;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
        goto out; /* free */
    if (S_ISLNK(st.st_mode))
        bad = "a symbolic link";
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if (st.st_uid != geteuid())
        bad = "another user's file";
    else if (!older(&st.st_ctim, &loaded))
        bad = "made since this program started";
    if (!bad && !unlinkat(dir, name, 0)) {
        SHOAL_LOG(OFI, INFO,
                  "removed /dev/shm/%s, a region of libfabric's shm provider left by an "
                  "earlier process with this PE's pid (%ld) that died without closing it",
                  name, (long)getpid());
        goto out;
    }
    rc = -1;
    if (bad)
        snprintf(why, len,
                 "libfabric's shm provider needs /dev/shm/%s for this PE's endpoint, but "
                 "a file of that name is there (%s, so Shoal leaves it alone); if no "
                 "running process uses it (a process killed before it closed its "
                 "endpoint leaves one behind), remove it and run again",
                 name, bad);
    else
        snprintf(why, len,
                 "cannot remove /dev/shm/%s, left by a killed process with this PE's pid "
                 "(%s), which libfabric's shm provider needs for this PE's endpoint; "
                 "remove it and run again",
                 name, strerror(errno));
out:
    close(dir);
    return rc;
}
