/* oshrun's placement (tools/oshrun/bind.c) on made-up machines: a fake /sys
 * tree with two sockets of two cores of two hardware threads, numbered as
 * Linux numbers them (siblings 0+4, 1+5, ...; cores 0,1 on socket 0). Checks
 * which CPUs each PE gets for every policy, map and PE count that matters. */
#include "oshrun.h"
#include "cpulist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;

static void put(const char *root, int cpu, const char *file, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology", root, cpu);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    if (system(cmd))
        exit(2);
    strcat(path, "/");
    strcat(path, file);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        exit(2);
}

/* expect: the CPU lists of PEs 0..np-1 separated by spaces, or "none". */
static const char *lockdir; /* NULL: no locking */

static void check(const char *root, const char *allowed, int np, enum bind_to want,
                  enum map_by map, const char *how, const char *expect)
{
    cpu_set_t mask;
    cpulist_parse(allowed, &mask);
    struct bind_plan plan;
    bind_plan(root, lockdir, &mask, np, want, map, &plan);
    char got[4096] = "";
    if (plan.how == BIND_NONE) {
        strcpy(got, "none");
    } else {
        for (int r = 0; r < np; r++) {
            cpu_set_t set;
            char list[256];
            bind_cpus(&plan, r, &set);
            cpulist_format(&set, list, sizeof list);
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", r ? " " : "", list);
        }
    }
    bind_plan_free(&plan);
    if (strcmp(got, expect) || strcmp(bind_name(plan.how), how)) {
        printf("FAIL: allowed %s, %d PEs, --bind-to %s, map %d: got %s [%s], expected %s "
               "[%s]\n",
               allowed, np, bind_name(want), (int)map, bind_name(plan.how), got, how, expect);
        failures++;
    }
}

int main(void)
{
    char root[] = "/tmp/shoal-bind-XXXXXX";
    if (!mkdtemp(root))
        return 2;
    for (int c = 0; c < 8; c++) {
        char sib[32], sock[8];
        snprintf(sib, sizeof sib, "%d,%d\n", c % 4, c % 4 + 4);
        snprintf(sock, sizeof sock, "%d\n", (c % 4) / 2);
        put(root, c, "thread_siblings_list", sib);
        put(root, c, "physical_package_id", sock);
    }
    /* PEs fit the cores: a core each (both its threads), socket by socket. */
    check(root, "0-7", 1, BIND_AUTO, MAP_CORE, "core", "0,4");
    check(root, "0-7", 4, BIND_AUTO, MAP_CORE, "core", "0,4 1,5 2,6 3,7");
    check(root, "0-7", 4, BIND_AUTO, MAP_SOCKET, "core", "0,4 2,6 1,5 3,7");
    /* More PEs than cores: a hardware thread each, every core's first thread first. */
    check(root, "0-7", 6, BIND_AUTO, MAP_CORE, "hwthread", "0 1 2 3 4 5");
    check(root, "0-7", 4, BIND_HWTHREAD, MAP_HWTHREAD, "hwthread", "0 4 1 5");
    /* More PEs than CPUs: spread over the cores round robin, both threads each. */
    check(root, "0-7", 9, BIND_AUTO, MAP_CORE, "core", "0,4 1,5 2,6 3,7 0,4 1,5 2,6 3,7 0,4");
    check(root, "0-7", 10, BIND_AUTO, MAP_SOCKET, "core",
          "0,4 2,6 1,5 3,7 0,4 2,6 1,5 3,7 0,4 2,6");
    check(root, "0-7", 5, BIND_CORE, MAP_CORE, "core", "0,4 1,5 2,6 3,7 0,4");
    check(root, "0-7", 2, BIND_NONE, MAP_CORE, "none", "none");
    check(root, "0-7", 3, BIND_SOCKET, MAP_CORE, "socket", "0-1,4-5 0-1,4-5 2-3,6-7");
    check(root, "0-7", 3, BIND_SOCKET, MAP_SOCKET, "socket", "0-1,4-5 2-3,6-7 0-1,4-5");
    /* An inherited mask: only its CPUs, and a core counts once however many of
     * its threads are allowed. */
    check(root, "0,1,4", 2, BIND_AUTO, MAP_CORE, "core", "0,4 1");
    check(root, "0,1,4", 3, BIND_AUTO, MAP_CORE, "hwthread", "0 1 4");
    check(root, "6", 1, BIND_AUTO, MAP_CORE, "core", "6");
    check(root, "6", 2, BIND_AUTO, MAP_CORE, "none",
          "none"); /* one core: nothing to spread */
    check(root, "0,4", 3, BIND_AUTO, MAP_CORE, "none", "none");
    check(root, "0,1,4", 4, BIND_AUTO, MAP_CORE, "core", "0,4 1 0,4 1");

    /* No topology files at all: every CPU is a core of its own. */
    check("/nonexistent", "0-3", 4, BIND_AUTO, MAP_CORE, "core", "0 1 2 3");

    /* Another job holds CPU 0 (so core 0+4 is not whole): automatic placement
     * takes what is free, an explicit policy goes where it is told. */
    char locks[sizeof root + 8];
    snprintf(locks, sizeof locks, "%s/locks", root);
    if (mkdir(locks, 0777))
        return 2;
    lockdir = locks;
    check(root, "0-7", 4, BIND_AUTO, MAP_CORE, "core", "0,4 1,5 2,6 3,7"); /* all free */
    char held[sizeof locks + 32];
    snprintf(held, sizeof held, "%s/shoal-oshrun-cpu0.lock", locks);
    int fd = open(held, O_RDONLY | O_CREAT, 0644);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB))
        return 2;
    check(root, "0-7", 2, BIND_AUTO, MAP_CORE, "core", "1,5 2,6");
    check(root, "0-7", 3, BIND_AUTO, MAP_CORE, "core", "1,5 2,6 3,7");
    check(root, "0-7", 4, BIND_AUTO, MAP_CORE, "hwthread", "1 2 3 4");
    /* Too few free CPUs: every PE still gets one, the free ones first, then
     * those the other job holds. */
    check(root, "0-7", 8, BIND_AUTO, MAP_CORE, "hwthread", "1 2 3 4 5 6 7 0");
    check(root, "0,1", 2, BIND_AUTO, MAP_CORE, "core", "1 0");
    check(root, "0,1,4,5", 2, BIND_AUTO, MAP_CORE, "hwthread", "1 4");
    /* PEs that outnumber the CPUs are spread only when no other job holds any:
     * that job's PE may spin on its own core. */
    check(root, "0-7", 12, BIND_AUTO, MAP_CORE, "none", "none");
    check(root, "1-3,5-7", 9, BIND_AUTO, MAP_CORE, "core",
          "1,5 2,6 3,7 1,5 2,6 3,7 1,5 2,6 3,7");
    check(root, "0-7", 2, BIND_CORE, MAP_CORE, "core", "0,4 1,5");
    close(fd);
    check(root, "0-7", 8, BIND_AUTO, MAP_CORE, "hwthread", "0 1 2 3 4 5 6 7");
    check(root, "0-7", 12, BIND_AUTO, MAP_CORE, "core",
          "0,4 1,5 2,6 3,7 0,4 1,5 2,6 3,7 0,4 1,5 2,6 3,7");
    /* A spread job holds every CPU: a later job shares its cores, one PE each. */
    {
        struct bind_plan first;
        cpu_set_t all;
        cpulist_parse("0-7", &all);
        bind_plan(root, lockdir, &all, 9, BIND_AUTO, MAP_CORE, &first);
        /* Held CPUs are taken from one that depends on the process id, so that
         * concurrent jobs do not all start on the first. */
        int c = (int)(getpid() % 4), t = (int)(getpid() % 8);
        char two[64], six[64] = "";
        snprintf(two, sizeof two, "%d,%d %d,%d", c, c + 4, (c + 1) % 4, (c + 1) % 4 + 4);
        for (int r = 0; r < 6; r++)
            snprintf(six + strlen(six), sizeof six - strlen(six), "%s%d", r ? " " : "",
                     (t + r) % 8);
        check(root, "0-7", 2, BIND_AUTO, MAP_CORE, "core", two);
        check(root, "0-7", 6, BIND_AUTO, MAP_CORE, "hwthread", six);
        bind_plan_free(&first);
    }

    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd))
        failures++;
    if (!failures)
        printf("bind_check: every placement as expected\n");
    return failures ? 1 : 0;
}
