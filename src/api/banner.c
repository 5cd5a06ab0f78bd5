/* What a PE says at start-up: a warning for SHMEM_* / SHOAL_* variables nothing
 * reads (PE 0), and with SHMEM_VERSION / SHMEM_INFO the version, bootstrap and
 * transports in use (PE 0) and, with SHMEM_INFO, PE 0's node topology and every
 * PE's CPU binding; warnings
 * for Cray OpenSHMEMX variables that do not apply, and SHMEM_MEMINFO_DISPLAY's
 * segments (PE 0). */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "bootstrap/bootstrap.h"
#include "build_info.h"
#include "env/cpulist.h"
#include "env/hwtopo.h"

extern char **environ;

/* PE 0's node as hwloc (or /sys) shows it, with the devices the NIC policy and the
 * GPU placement work from. */
static void print_topology(void)
{
    char err[256];
    struct shoal_hwtopo *t = shoal_hwtopo_load(err, sizeof err);
    if (!t) {
        printf("Topology (PE 0's node): unknown: %s\n", err);
        return;
    }
    printf("Topology (PE 0's node, %s): %d package%s, %d NUMA domain%s, %d L3 cache%s, %d "
           "cores, %d hardware threads",
           t->source, t->npackage, t->npackage == 1 ? "" : "s", t->nnuma,
           t->nnuma == 1 ? "" : "s", t->nl3, t->nl3 == 1 ? "" : "s", t->ncore, t->npu);
    for (int i = 0; i < t->nnic; i++)
        printf("%s%s (NUMA %d)", i ? ", " : "; NICs ", t->nics[i].name,
               t->nics[i].numa >= 0 ? t->numa[t->nics[i].numa].os_index : -1);
    for (int i = 0; i < t->ngpu; i++)
        printf("%s%s (NUMA %d)", i ? ", " : "; GPUs ", t->gpus[i].name,
               t->gpus[i].numa >= 0 ? t->numa[t->gpus[i].numa].os_index : -1);
    printf("%s%s\n", *t->note ? "; note: " : "", t->note);
    shoal_hwtopo_free(t);
}

static void print_binding(void)
{
    cpu_set_t set;
    char cpus[512] = "?", host[256] = "?";
    if (!sched_getaffinity(0, sizeof set, &set))
        cpulist_format(&set, cpus, sizeof cpus);
    gethostname(host, sizeof host - 1);
    const char *how = shoal.cfg.binding;
    char why[128];
    if (shoal.boot != &shoal_boot_oshrun)
        snprintf(why, sizeof why, "as %s left it",
                 shoal.boot == &shoal_boot_single ? "the shell" : "the launcher");
    else if (!how || !*how || !strncmp(how, "none", 4))
        snprintf(why, sizeof why,
                 "not bound by oshrun: --bind-to none, other oshrun jobs hold CPUs it "
                 "would get, or one core for all");
    else
        snprintf(why, sizeof why, "bound by oshrun to %s %.*s%s",
                 strchr(how, ':') ? "a" : "its own", (int)strcspn(how, ":"), how,
                 strstr(how, ":spread")     ? " shared with other PEs, until a task outside "
                                              "the job holds it"
                         : strchr(how, ':') ? " shared with other PEs"
                                            : "");
    printf("PE %d on %s: CPUs %s (%s)\n", shoal.my_pe, host, cpus, why);
}

/* SHMEM_MEMINFO_DISPLAY: the segments and what backs them. */
static void print_meminfo(void)
{
    const struct shoal_seg *h = &shoal.seg[SHOAL_SEG_HEAP], *d = &shoal.seg[SHOAL_SEG_DATA],
                           *dev = &shoal.seg[SHOAL_SEG_DEVICE];
    printf("Memory (SHMEM_MEMINFO_DISPLAY), per PE:\n"
           "  symmetric heap  %zu bytes at %p: SHMEM_SYMMETRIC_SIZE %zu for the program, "
           "the rest the library's; an anonymous shared-memory file (memfd) that the %d PEs "
           "of its node map, in pages committed when first touched\n"
           "  static data     %zu bytes at %p: the program's globals and statics, moved "
           "in place onto a memfd of their own that the same PEs map\n",
           h->size, (void *)h->base, shoal.cfg.symmetric_size, shoal_team_shared.size,
           d->size, (void *)d->base);
    if (dev->size)
        printf("  device heap     %zu bytes at %p: device memory "
               "(SHMEM_SYMMETRIC_SIZE_DEVICE), "
               "allocated in full at start-up\n",
               dev->size, (void *)dev->base);
    else
        printf("  device heap     none (SHMEM_SYMMETRIC_SIZE_DEVICE=0)\n");
}

void shoal_banner(void)
{
    if (shoal.my_pe == 0) {
        shoal_env_warn_unknown(shoal_error_stream(), environ);
        shoal_env_warn_na(shoal_error_stream(), &shoal.cfg);
        if (shoal.cfg.meminfo_display)
            print_meminfo();
    }
    if (shoal.my_pe == 0 && (shoal.cfg.info || shoal.cfg.version)) {
        printf("Shoal %s, OpenSHMEM %d.%d, %d PEs on %d node%s; bootstrap: %s; transport: ",
               SHOAL_VERSION_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, shoal.n_pes,
               shoal.n_nodes, shoal.n_nodes == 1 ? "" : "s", shoal.boot->name);
        if (shoal.multi_node)
            printf("shm within a node, %s%s%s%s between nodes\n", shoal_tp_name(),
                   shoal_tp.net_provider ? " (provider " : "",
                   shoal_tp.net_provider ? shoal_tp.net_provider : "",
                   shoal_tp.net_provider ? ")" : "");
        else
            printf("shm (every PE on one node)\n");
        if (shoal.cfg.info) {
            /* backoff.c: a core of its own never sleeps, unless the provider's
             * own thread needs it. */
            int spins_on = shoal_wait.own_core && shoal.cfg.spin_count < 0 &&
                    !shoal_wait.net_self_progress;
            printf("Waiting (PE 0): %u polls, then %s (%s)\n", shoal_wait.spin_polls,
                   spins_on ? "polls on, yielding every 1024" : "yields and sleeps",
                   shoal.cfg.spin_count >= 0      ? "SHOAL_SPIN_COUNT"
                           : shoal_wait.own_core  ? "it has a core of its own"
                           : shoal_wait.host_busy ? "the host was busy at start-up"
                                                  : "PEs outnumber its cores");
            print_topology();
            if (shoal.multi_node)
                shoal_tp_info();
            printf("Environment variables (SHMEM_INFO):\n");
            shoal_env_print(stdout, &shoal.cfg, 0);
        }
    }
    if (shoal.cfg.info)
        print_binding();
    fflush(stdout);
}
