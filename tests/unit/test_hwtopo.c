/* The node topology and the NIC policy (src/env/hwtopo.c) on the shipped topology
 * files and on made-up NIC lists: what oshrun --dry-run cannot reach (no topology,
 * NICs hwloc does not know, malformed values). usage: test_hwtopo TOPOLOGY_DIR */
#include "hwtopo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            printf("FAIL line %d: ", __LINE__);                                              \
            printf(__VA_ARGS__);                                                             \
            printf("\n");                                                                    \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

static struct shoal_hwtopo *load(const char *dir, const char *name)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct shoal_hwtopo *t = shoal_hwtopo_load_xml(path, err, sizeof err);
    if (!t) {
        printf("FAIL: %s: %s\n", path, err);
        exit(1);
    }
    return t;
}

static const char *const names[] = { "a", "b", "c", "d" };

/* The NIC for local PE r of n, bound to CPU 5, with the variables given, or -1 with
 * err. */
static int pick(const struct shoal_hwtopo *t, const int *topo, int nnic, int r, int n,
                const char *num, const char *pol, const char *map, char *err)
{
    struct shoal_nic_req q = { .pe = 40 + r,
                               .local_rank = r,
                               .local_size = n,
                               .nnic = nnic,
                               .nic_name = names,
                               .nic_topo = topo,
                               .gpu = -1,
                               .num_nics = num,
                               .policy = pol,
                               .mapping = map };
    CPU_ZERO(&q.cpus);
    CPU_SET(5, &q.cpus);
    return shoal_nic_choose(t, &q, err, 512);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/topology";
    char err[512];
    struct shoal_hwtopo *m = load(dir, "milan-nps4.xml");
    CHECK(m->npackage == 2 && m->nnuma == 8 && m->nl3 == 16 && m->ncore == 128 &&
                  m->npu == 128,
          "milan: %d packages %d NUMA %d L3 %d cores %d PUs", m->npackage, m->nnuma, m->nl3,
          m->ncore, m->npu);
    CHECK(m->nnic == 2 && !strcmp(m->nics[0].name, "cxi0") && m->nics[0].numa == 3 &&
                  !strcmp(m->nics[1].name, "cxi1") && m->nics[1].numa == 7 && m->ngpu == 0,
          "milan NICs");
    CHECK(shoal_hwtopo_distance(m, 0, 3) == 12 && shoal_hwtopo_distance(m, 0, 4) == 32 &&
                  shoal_hwtopo_distance(m, 5, 5) == 10,
          "milan distances");
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(17, &s);
    CHECK(shoal_hwtopo_numa_of(m, &s) == 1, "CPU 17 in NUMA 1");
    CPU_SET(64, &s);
    CHECK(shoal_hwtopo_numa_of(m, &s) == -1, "CPUs 17, 64 span domains");
    CPU_ZERO(&s);
    CPU_SET(500, &s);
    CHECK(shoal_hwtopo_numa_of(m, &s) == -2, "CPU 500 is not the node's");
    CHECK(shoal_hwtopo_nic_find(m, "cxi1") == 1 && shoal_hwtopo_nic_find(m, "hsn0") == -1,
          "nic_find");

    /* No topology: AUTO spreads, NUMA refuses. */
    for (int r = 0; r < 6; r++)
        CHECK(pick(NULL, NULL, 3, r, 6, NULL, NULL, NULL, err) == r % 3, "AUTO spread %d", r);
    CHECK(pick(NULL, NULL, 1, 5, 6, NULL, NULL, NULL, err) == 0, "one NIC");
    CHECK(pick(NULL, NULL, 3, 0, 6, NULL, "NUMA", NULL, err) == -1 && strstr(err, "PE 40:") &&
                  strstr(err, "SHMEM_OFI_NIC_POLICY=NUMA"),
          "NUMA without topology: %s", err);
    /* NICs the topology does not know: NUMA refuses, AUTO spreads. */
    int unknown[] = { -1, -1 };
    CHECK(pick(m, unknown, 2, 0, 2, NULL, "numa", NULL, err) == -1 &&
                  strstr(err, "places none of the provider's NICs"),
          "NUMA, NICs unknown: %s", err);
    int known[] = { 1, 0 }; /* the provider lists cxi1 first */
    struct shoal_nic_req q = { .pe = 3,
                               .local_rank = 0,
                               .local_size = 1,
                               .nnic = 2,
                               .nic_name = names,
                               .nic_topo = known,
                               .gpu = -1,
                               .policy = "NUMA" };
    CPU_ZERO(&q.cpus);
    CPU_SET(5, &q.cpus); /* NUMA 0: cxi0, at index 1 */
    CHECK(shoal_nic_choose(m, &q, err, sizeof err) == 1, "NUMA picks cxi0 by index");
    /* BLOCK over SHMEM_OFI_NUM_NICS, and its errors. */
    for (int r = 0; r < 8; r++)
        CHECK(pick(NULL, NULL, 4, r, 8, "2", NULL, NULL, err) == r / 4, "BLOCK %d", r);
    for (int r = 0; r < 4; r++)
        CHECK(pick(NULL, NULL, 4, r, 4, "2:3,1", "ROUND-ROBIN", NULL, err) == (r % 2 ? 1 : 3),
              "ROUND-ROBIN over 3,1: %d", r);
    CHECK(pick(NULL, NULL, 4, 0, 4, "x", NULL, NULL, err) == -1 &&
                  strstr(err, "SHMEM_OFI_NUM_NICS=\"x\" is not valid"),
          "%s", err);
    CHECK(pick(NULL, NULL, 4, 0, 4, "2:1", NULL, NULL, err) == -1 &&
                  strstr(err, "asks for 2 NICs but lists 1"),
          "%s", err);
    /* USER, and a mapping without it; SKIP; an unknown policy. */
    CHECK(pick(NULL, NULL, 2, 2, 4, NULL, "USER", "1:0-1; 0:2-3", err) == 0, "USER");
    CHECK(pick(NULL, NULL, 2, 2, 4, NULL, "USER", "1:0-1; 0:2-3; 1:3", err) == -1 &&
                  strstr(err, "maps local PE 3 to two NICs"),
          "%s", err);
    CHECK(pick(NULL, NULL, 2, 2, 4, NULL, "USER", "1:0-1 0:2-3", err) == -1 &&
                  strstr(err, "is not valid"),
          "%s", err);
    CHECK(pick(NULL, NULL, 2, 0, 4, NULL, "BLOCK", "0:0-3", err) == -1 &&
                  strstr(err, "applies only with SHMEM_OFI_NIC_POLICY=USER"),
          "%s", err);
    struct shoal_nic_req sk = { .pe = 1,
                                .local_rank = 1,
                                .local_size = 2,
                                .nnic = 2,
                                .gpu = -1,
                                .policy = "bogus",
                                .skip_selection = true };
    CHECK(shoal_nic_choose(NULL, &sk, err, sizeof err) == 0 &&
                  !strcmp(shoal_nic_policy_name(&sk), "SKIP"),
          "SKIP");
    CHECK(pick(NULL, NULL, 2, 0, 4, NULL, "bogus", NULL, err) == -1 &&
                  strstr(err, "SHMEM_OFI_NIC_POLICY=bogus is not a policy"),
          "%s", err);
    shoal_hwtopo_free(m);

    /* GPUs: the ordinal's name, and the NIC on its switch. */
    struct shoal_hwtopo *p = load(dir, "perlmutter.xml");
    CHECK(p->ngpu == 4 && p->nnic == 4, "perlmutter: %d GPUs %d NICs", p->ngpu, p->nnic);
    for (int g = 0; g < 4; g++) {
        int i = shoal_hwtopo_gpu_of(p, g), near = -1;
        char want[16];
        snprintf(want, sizeof want, "cuda%d", g);
        CHECK(i >= 0 && !strcmp(p->gpus[i].name, want), "GPU of ordinal %d", g);
        unsigned best = ~0u;
        for (int n = 0; n < p->nnic; n++) {
            unsigned d = shoal_hwtopo_dev_distance(p, &p->gpus[i], &p->nics[n]);
            if (d < best)
                best = d, near = n;
        }
        snprintf(want, sizeof want, "cxi%d", g);
        CHECK(near >= 0 && !strcmp(p->nics[near].name, want) &&
                      p->nics[near].numa == p->gpus[i].numa,
              "NIC nearest cuda%d", g);
    }
    shoal_hwtopo_free(p);

    /* This machine: hwloc or /sys, at least one NUMA domain holding every CPU. */
    struct shoal_hwtopo *h = shoal_hwtopo_load(err, sizeof err);
    CHECK(h && h->npu > 0 && h->nnuma >= 1 && shoal_hwtopo_numa_of(h, &h->all) != -2,
          "this machine: %s", h ? h->source : err);
    if (h)
        printf("this machine (%s): %d NUMA, %d cores, %d NICs%s%s\n", h->source, h->nnuma,
               h->ncore, h->nnic, *h->note ? "; " : "", h->note);
    /* /sys alone, as without hwloc: the same CPUs and cores as hwloc saw. */
    struct shoal_hwtopo *y = shoal_hwtopo_load_sys(err, sizeof err);
    CHECK(y && y->from == SHOAL_HWTOPO_SYS && y->nnuma >= 1 && y->npackage >= 1 &&
                  shoal_hwtopo_numa_of(y, &y->all) != -2 &&
                  shoal_hwtopo_distance(y, 0, 0) == 10,
          "/sys: %s", y ? y->source : err);
    CHECK(!h || !y || (CPU_EQUAL(&h->all, &y->all) && h->ncore == y->ncore),
          "/sys and hwloc disagree: %d and %d cores", h ? h->ncore : -1, y ? y->ncore : -1);
    if (y)
        printf("this machine (/sys): %d NUMA, %d cores, %d L3, %d NICs\n", y->nnuma, y->ncore,
               y->nl3, y->nnic);
    shoal_hwtopo_free(y);
    shoal_hwtopo_free(h);
    if (failures)
        printf("%d checks failed\n", failures);
    else
        printf("topology and NIC policy: every check passed\n");
    return failures ? 1 : 0;
}
