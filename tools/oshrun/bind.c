/* Where each PE runs. oshrun gives every PE its own core when the PEs fit the
 * cores it may use (its inherited affinity mask, narrowed by the cgroup's
 * cpuset), and otherwise its own hardware thread (distinct cores first, then
 * their siblings); PEs that outnumber the CPUs are spread over the cores round
 * robin (several PEs per core), so that the kernel does not move them between
 * CPUs as they wait and wake (8 PEs on 2 CPUs: small collectives twice as fast
 * as unbound; docs/performance.md, "Crowded nodes").
 * Cores and sockets come from /sys topology, so hyperthread siblings are never
 * mistaken for cores. Every oshrun holds an advisory lock (flock) on a file per
 * CPU it binds to while its job runs, and automatic placement takes CPUs no
 * other job holds first, so concurrent jobs (ctest -j, several users) do not all
 * pile onto core 0 (take_free). */
#include "oshrun.h"
#include "cpulist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* One CPU the job may use, with the core and socket it belongs to. */
struct cpu {
    int id;
    int core; /* lowest CPU number among its core's threads */
    int socket;
    int thread; /* its rank among the allowed threads of its core */
};

static int read_int(const char *root, int cpu, const char *file, int fallback)
{
    char path[512];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/%s", root, cpu, file);
    FILE *f = fopen(path, "r");
    int v;
    if (!f)
        return fallback;
    if (fscanf(f, "%d", &v) != 1)
        v = fallback;
    fclose(f);
    return v;
}

/* The core a CPU belongs to, named by the lowest CPU of its threads (core_id
 * alone repeats across sockets). */
static int core_of(const char *root, int cpu)
{
    char path[512], line[4096];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
             root, cpu);
    FILE *f = fopen(path, "r");
    if (!f)
        return cpu;
    cpu_set_t sib;
    int core = cpu;
    if (fgets(line, sizeof line, f) && !cpulist_parse(line, &sib))
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &sib)) {
                core = c;
                break;
            }
    fclose(f);
    return core;
}

/* The cgroup's cpuset (v2, or v1's cpuset hierarchy), intersected into set. A
 * container may show the host's CPUs in the affinity mask while its cpuset
 * allows fewer. */
static void apply_cgroup(const char *root, cpu_set_t *set)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return;
    char line[4096], path[4608];
    const char *file = NULL;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *ctrl = strchr(line, ':'), *dir = ctrl ? strchr(ctrl + 1, ':') : NULL;
        if (!dir)
            continue;
        *dir++ = '\0';
        ctrl++;
        if (!strcmp(ctrl, "")) { /* v2: 0::/path */
            snprintf(path, sizeof path, "%s/fs/cgroup%s/cpuset.cpus.effective", root, dir);
            file = path;
        } else if (strstr(ctrl, "cpuset")) { /* v1: n:cpuset:/path */
            snprintf(path, sizeof path, "%s/fs/cgroup/cpuset%s/cpuset.effective_cpus", root,
                     dir);
            file = path;
            break;
        }
    }
    fclose(f);
    if (!file || !(f = fopen(file, "r")))
        return;
    cpu_set_t cg;
    if (fgets(line, sizeof line, f) && !cpulist_parse(line, &cg) && CPU_COUNT(&cg) > 0) {
        cpu_set_t both;
        CPU_AND(&both, set, &cg);
        if (CPU_COUNT(&both) > 0)
            *set = both;
    }
    fclose(f);
}

static int by_socket_core_thread(const void *a, const void *b)
{
    const struct cpu *x = a, *y = b;
    if (x->socket != y->socket)
        return x->socket - y->socket;
    if (x->core != y->core)
        return x->core - y->core;
    return x->id - y->id;
}

const char *bind_name(enum bind_to b)
{
    static const char *const names[] = {
        [BIND_AUTO] = "auto",         [BIND_NONE] = "none",      [BIND_CORE] = "core",
        [BIND_HWTHREAD] = "hwthread", [BIND_SOCKET] = "socket",  [BIND_NUMA] = "numa",
        [BIND_L3CACHE] = "l3cache",   [BIND_PACKAGE] = "package"
    };
    return names[b];
}

int bind_parse(const char *s, enum bind_to *out)
{
    /* Open MPI qualifiers such as core:overload-allowed change nothing here. */
    size_t n = strcspn(s, ":");
    for (int b = BIND_AUTO; b <= BIND_PACKAGE; b++)
        if (strlen(bind_name(b)) == n && !strncmp(s, bind_name(b), n)) {
            *out = b;
            return 0;
        }
    if (n == 6 && !strncmp(s, "hwthrd", 6)) {
        *out = BIND_HWTHREAD;
        return 0;
    }
    return -1;
}

/* plan->locks[i] of a CPU whose lock file cannot serve (it stays taken). */
#define LOCK_UNUSABLE (-2)

/* Takes CPU cpus[i]'s lock in the lock directory dir: 1, or 0 when another job
 * holds it, or -1 when no lock can be made there (then nothing is locked at all).
 * The directory is shared with other users' jobs, so a name there may be
 * anything they left: a file that cannot serve as a lock (a FIFO, a symbolic
 * link, one this user may not read) marks its CPU as taken, with a warning, and
 * is never opened in a way that could block or write through it. */
static int lock_cpu(struct bind_plan *plan, int dir, int i)
{
    if (plan->locks[i] >= 0)
        return 1;
    if (plan->locks[i] == LOCK_UNUSABLE) /* said once */
        return 0;
    char name[64];
    snprintf(name, sizeof name, "shoal-oshrun-cpu%d.lock", plan->cpus[i].id);
    /* Open an existing file without O_CREAT: in a sticky /tmp, fs.protected_regular
     * refuses O_CREAT on another user's file even when it exists. O_NONBLOCK: an
     * open of a FIFO would otherwise wait for a writer. */
    const int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
    int fd = openat(dir, name, flags);
    if (fd < 0 && errno == ENOENT) {
        fd = openat(dir, name, flags | O_CREAT | O_EXCL, 0644);
        if (fd < 0 && errno == EEXIST) /* another job made it just now */
            fd = openat(dir, name, flags);
        else if (fd < 0)
            return -1; /* the directory takes no files: locking is unavailable */
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        fprintf(stderr,
                "oshrun: warning: %s/%s cannot serve as a CPU lock (%s); CPU %d is "
                "treated as taken by another job; whoever owns the file should remove it\n",
                plan->lockdir, name,
                fd >= 0                  ? "not a regular file"
                        : errno == ELOOP ? "a symbolic link"
                                         : strerror(errno),
                plan->cpus[i].id);
        if (fd >= 0)
            close(fd);
        plan->locks[i] = LOCK_UNUSABLE;
        return 0;
    }
    /* Every user's jobs must be able to open it: the mode given at creation lost
     * to a umask such as 077, or a file left so, is restored by its owner. */
    if (st.st_uid == geteuid() && (st.st_mode & 0444) != 0444)
        fchmod(fd, (st.st_mode & 07777) | 0444);
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        return 0;
    }
    plan->locks[i] = fd;
    return 1;
}

static void unlock_all(struct bind_plan *plan)
{
    for (int i = 0; i < plan->ncpu; i++)
        if (plan->locks[i] >= 0) {
            close(plan->locks[i]);
            plan->locks[i] = -1;
        }
}

/* Locks every CPU of core s (an index into core_first): 1 if all were free. */
static int lock_core(struct bind_plan *plan, int dir, int s)
{
    int first = plan->core_first[s];
    for (int i = first; i < plan->ncpu && plan->cpus[i].core == plan->cpus[first].core &&
         plan->cpus[i].socket == plan->cpus[first].socket;
         i++) {
        int got = lock_cpu(plan, dir, i);
        if (got <= 0) {
            for (int k = first; k < i; k++) {
                close(plan->locks[k]);
                plan->locks[k] = -1;
            }
            return got;
        }
    }
    return 1;
}

/* Puts the entries of order (n of them) that free_ marks free first, keeping
 * their order, then the held ones, starting from a different one in each job
 * (by process id): PEs take free CPUs before held ones, and concurrent jobs that
 * find every CPU held do not all start on the first. */
static void free_first(int *order, int n, const bool *free_)
{
    int *tmp = malloc((size_t)n * sizeof *tmp), k = 0, held = 0;
    if (!tmp)
        return;
    for (int i = 0; i < n; i++)
        if (free_[i])
            tmp[k++] = order[i];
    held = n - k;
    for (int j = 0, skip = held ? (int)(getpid() % held) : 0, seen = 0; j < 2 * n; j++) {
        int i = j % n;
        if (free_[i] || seen++ < skip)
            continue;
        if (k == n)
            break;
        tmp[k++] = order[i];
    }
    memcpy(order, tmp, (size_t)n * sizeof *tmp);
    free(tmp);
}

/* Automatic placement among the CPUs other jobs leave free: np whole cores, else
 * np hardware threads. When other jobs hold too many, the PEs still get a core
 * (else a hardware thread) each, free ones first, sharing the rest with the job
 * that holds them (plan->foreign): two jobs' PEs pinned one per core keep
 * meeting their partners, where PEs left to the kernel were separated for whole
 * time slices (2 PEs beside another 2-PE job on 2 CPUs: barrier 2.0 us bound
 * against 11.3 unbound). Narrows core_order / thread_order to what it takes.
 * Returns the binding, or -1 when locking is unavailable. */
static int take_free(struct bind_plan *plan, int dir, int np, int *core_order,
                     int *thread_order)
{
    bool *free_ = calloc((size_t)plan->ncpu, sizeof *free_);
    int got = 0, how = BIND_NONE;
    if (!free_)
        return BIND_NONE;
    for (int s = 0; s < plan->ncore; s++) {
        int ok = lock_core(plan, dir, core_order[s]);
        if (ok < 0)
            goto unavailable;
        free_[s] = ok;
        got += ok;
        plan->others |= !ok;
    }
    if (got >= np) {
        free_first(core_order, plan->ncore, free_);
        plan->ncore_use = np;
        how = BIND_CORE;
        goto out;
    }
    unlock_all(plan);
    got = 0;
    for (int t = 0; t < plan->ncpu; t++) {
        int ok = lock_cpu(plan, dir, thread_order[t]);
        if (ok < 0)
            goto unavailable;
        free_[t] = ok;
        got += ok;
    }
    plan->foreign = got < np;
    if (!plan->foreign || np > plan->ncore) {
        free_first(thread_order, plan->ncpu, free_);
        plan->ncpu_use = np;
        how = BIND_HWTHREAD;
        goto out;
    }
    /* Whole cores, shared: the free ones first. */
    unlock_all(plan);
    for (int s = 0; s < plan->ncore; s++) {
        int ok = lock_core(plan, dir, core_order[s]);
        if (ok < 0)
            goto unavailable;
        free_[s] = ok;
    }
    free_first(core_order, plan->ncore, free_);
    plan->ncore_use = np;
    how = BIND_CORE;
    goto out;
unavailable:
    how = -1;
out:
    /* Only the CPUs the PEs get stay locked. */
    for (int i = 0; i < plan->ncpu; i++)
        if (plan->locks[i] >= 0) {
            cpu_set_t mine;
            bool used = false;
            for (int r = 0; r < np && how >= 0 && !used; r++) {
                plan->how = (enum bind_to)how;
                bind_cpus(plan, r, &mine);
                used = CPU_ISSET(plan->cpus[i].id, &mine);
            }
            if (!used) {
                close(plan->locks[i]);
                plan->locks[i] = -1;
            }
        }
    plan->how = BIND_NONE;
    free(free_);
    return how;
}

/* Automatic placement of PEs that outnumber the CPUs: spread over every core,
 * when no other job holds any of them. Such a job's PEs are bound there and may
 * spin on a core of their own; PEs pinned beside them could not move away.
 * Returns the binding, or -1 when locking is unavailable. */
static int take_all(struct bind_plan *plan, int dir)
{
    for (int i = 0; i < plan->ncpu; i++) {
        int ok = lock_cpu(plan, dir, i);
        if (ok < 0)
            return -1;
        if (!ok) {
            plan->others = true;
            unlock_all(plan);
            return BIND_NONE;
        }
    }
    return BIND_CORE;
}

/* Works out how PEs are placed: plan->how is what applies (BIND_NONE when the
 * kernel places them) and bind_cpus gives each PE its CPUs. */
void bind_plan(const char *root, const char *lockdir, const cpu_set_t *allowed_in, int np,
               enum bind_to want, enum map_by map, struct bind_plan *plan)
{
    cpu_set_t allowed = *allowed_in;
    apply_cgroup(root, &allowed);
    int ncpu = CPU_COUNT(&allowed), ncore = 0, nsocket = 0, k = 0;
    *plan = (struct bind_plan){ .allowed = allowed, .how = BIND_NONE, .ncpu = ncpu };
    struct cpu *cpus = calloc((size_t)ncpu, sizeof *cpus);
    int *core_first =
            calloc((size_t)ncpu, sizeof *core_first); /* index in cpus of each core */
    int *core_order = calloc((size_t)ncpu, sizeof *core_order);
    int *thread_order = calloc((size_t)ncpu, sizeof *thread_order);
    int *locks = malloc((size_t)ncpu * sizeof *locks);
    if (!cpus || !core_first || !core_order || !thread_order || !locks)
        goto fail;
    for (int i = 0; i < ncpu; i++)
        locks[i] = -1;
    for (int c = 0; c < CPU_SETSIZE && k < ncpu; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[k++] = (struct cpu){ .id = c,
                                      .core = core_of(root, c),
                                      .socket = read_int(root, c, "physical_package_id", 0) };
    qsort(cpus, (size_t)ncpu, sizeof *cpus, by_socket_core_thread);
    for (int i = 0; i < ncpu; i++) {
        bool new_core = i == 0 || cpus[i].core != cpus[i - 1].core ||
                cpus[i].socket != cpus[i - 1].socket;
        cpus[i].thread = new_core ? 0 : cpus[i - 1].thread + 1;
        if (new_core)
            core_first[ncore++] = i;
        if (i == 0 || cpus[i].socket != cpus[i - 1].socket)
            nsocket++;
    }
    plan->ncore = ncore;
    plan->nsocket = nsocket;

    /* The order cores are handed out in: socket by socket, or round robin over
     * sockets with --map-by socket. */
    int m = 0;
    if (map == MAP_SOCKET) {
        for (int round = 0; m < ncore; round++)
            for (int s = 0, seen = -1, idx = 0; s < ncore; s++) {
                int sock = cpus[core_first[s]].socket;
                idx = sock == seen ? idx + 1 : 0;
                seen = sock;
                if (idx == round)
                    core_order[m++] = s;
            }
    } else {
        for (; m < ncore; m++)
            core_order[m] = m;
    }
    /* Hardware threads: the first thread of every core (in core order), then the
     * second of every core, and so on; --map-by hwthread keeps siblings together. */
    m = 0;
    for (int t = 0; m < ncpu; t++)
        for (int s = 0; s < ncore; s++) {
            int first = core_first[core_order[s]];
            for (int i = first; i < ncpu && cpus[i].core == cpus[first].core &&
                 cpus[i].socket == cpus[first].socket;
                 i++)
                if (map == MAP_HWTHREAD ? t == 0 : cpus[i].thread == t)
                    thread_order[m++] = i;
        }

    plan->cpus = cpus;
    plan->core_first = core_first;
    plan->core_order = core_order;
    plan->thread_order = thread_order;
    plan->locks = locks;
    plan->ncore_use = ncore;
    plan->ncpu_use = ncpu;

    /* Spreading over a single core would bind the PEs where they are anyway. */
    int how = want, spread = np > ncpu && ncore > 1;
    /* Names in the directory are opened relative to it, so that it is looked up once. */
    int dir = lockdir && *lockdir ? open(lockdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    plan->lockdir = lockdir;
    if (how == BIND_AUTO && dir >= 0)
        how = np <= ncpu ? take_free(plan, dir, np, core_order, thread_order)
                : spread ? take_all(plan, dir)
                         : BIND_NONE;
    if (how == BIND_AUTO || how < 0)
        how = np <= ncore || spread ? BIND_CORE : np <= ncpu ? BIND_HWTHREAD : BIND_NONE;
    plan->how = ncpu > 0 ? (enum bind_to)how : BIND_NONE;
    plan->spread = want == BIND_AUTO && spread && plan->how == BIND_CORE;
    plan->shared = how == BIND_SOCKET ||
            np > (how == BIND_HWTHREAD ? plan->ncpu_use : plan->ncore_use);
    /* An explicit policy goes where it is told, but still marks what it uses. */
    if (want != BIND_AUTO && plan->how != BIND_NONE && dir >= 0)
        for (int r = 0; r < np && r < ncpu; r++) {
            cpu_set_t set;
            bind_cpus(plan, r, &set);
            for (int i = 0; i < ncpu; i++)
                if (CPU_ISSET(cpus[i].id, &set) && lock_cpu(plan, dir, i) < 0)
                    goto done;
        }
done:
    if (dir >= 0)
        close(dir);
    return;
fail:
    free(cpus);
    free(core_first);
    free(core_order);
    free(thread_order);
    free(locks);
}

/* The CPUs PE r runs on under plan (plan->how is not BIND_NONE). */
void bind_cpus(const struct bind_plan *plan, int r, cpu_set_t *set)
{
    const struct cpu *cpus = plan->cpus;
    if (plan->pe_sets) {
        *set = plan->pe_sets[r];
        return;
    }
    CPU_ZERO(set);
    if (plan->how == BIND_HWTHREAD) {
        CPU_SET(cpus[plan->thread_order[r % plan->ncpu_use]].id, set);
        return;
    }
    const struct cpu *first = &cpus[plan->core_first[plan->core_order[r % plan->ncore_use]]];
    for (int i = 0; i < plan->ncpu; i++)
        if (cpus[i].socket == first->socket &&
            (plan->how == BIND_SOCKET || cpus[i].core == first->core))
            CPU_SET(cpus[i].id, set);
}

void bind_plan_free(struct bind_plan *plan)
{
    if (plan->locks)
        unlock_all(plan);
    free(plan->locks);
    plan->locks = NULL;
    free((void *)plan->cpus);
    free((void *)plan->core_first);
    free((void *)plan->core_order);
    free((void *)plan->thread_order);
    plan->cpus = NULL;
    plan->core_first = plan->core_order = plan->thread_order = NULL;
    free(plan->pe_sets);
    free(plan->pe_gpu);
    plan->pe_sets = NULL;
    plan->pe_gpu = NULL;
}
