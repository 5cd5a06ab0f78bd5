/* Traffic between hosts for the NIC tests (nics.sh): each PE puts BYTES to every PE
 * of the other hosts, ROUNDS times, and checks what every such PE put to it; PE 0
 * then prints the job's aggregate rate between hosts. Which interfaces carried it
 * is nics.sh's to find out, from their counters.
 * usage: nics_check HOSTS BYTES ROUNDS */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_PES 64

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* The byte at offset i of what PE pe sends in round r: differs between senders,
 * rounds and offsets, so a put that went astray or was not repeated shows. */
static unsigned char pattern(int pe, long r, size_t i)
{
    return (unsigned char)(pe * 31 + r * 7 + (long)(i % 251));
}

static double elapsed, slowest;

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (argc != 4 || n > MAX_PES) {
        if (me == 0)
            fprintf(stderr, "usage: nics_check HOSTS BYTES ROUNDS (at most %d PEs)\n",
                    MAX_PES);
        shmem_global_exit(2);
    }
    int want_hosts = atoi(argv[1]);
    size_t bytes = (size_t)atol(argv[2]);
    long rounds = atol(argv[3]);
    unsigned char *dst = shmem_malloc((size_t)n * bytes);
    unsigned char *src = malloc(bytes);
    if (!dst || !src) {
        fprintf(stderr, "nics_check: PE %d: out of memory for %zu bytes a PE\n", me, bytes);
        shmem_global_exit(1);
    }
    /* The PEs of other hosts: shmem_ptr reaches only this host's. */
    int remote[MAX_PES], nremote = 0;
    for (int pe = 0; pe < n; pe++)
        if (!shmem_ptr(dst, pe))
            remote[nremote++] = pe;
    int local = n - nremote;
    if (n % local || n / local != want_hosts) {
        fprintf(stderr, "nics_check: PE %d: %d PEs on this host of %d: not %d hosts\n", me,
                local, n, want_hosts);
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    double t0 = now();
    for (long r = 0; r < rounds; r++) {
        for (size_t i = 0; i < bytes; i++)
            src[i] = pattern(me, r, i);
        for (int k = 0; k < nremote; k++) {
            int pe = remote[(k + me) % nremote]; /* spread the targets */
            shmem_putmem_nbi(dst + (size_t)me * bytes, src, bytes, pe);
        }
        shmem_quiet();
        shmem_barrier_all();
        for (int k = 0; k < nremote; k++) {
            const unsigned char *got = dst + (size_t)remote[k] * bytes;
            for (size_t i = 0; i < bytes; i++)
                if (got[i] != pattern(remote[k], r, i)) {
                    fprintf(stderr,
                            "nics_check: PE %d: round %ld, byte %zu from PE %d is %u, "
                            "expected %u\n",
                            me, r, i, remote[k], got[i], pattern(remote[k], r, i));
                    shmem_global_exit(1);
                }
        }
        shmem_barrier_all(); /* checked before the next round overwrites it */
    }
    elapsed = now() - t0;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest, &elapsed, 1);
    if (me == 0)
        printf("nics_check: %d PEs on %d hosts: ok, %.1f MB/s between hosts\n", n, want_hosts,
               (double)n * nremote * (double)bytes * (double)rounds / slowest / 1e6);
    shmem_free(dst);
    free(src);
    shmem_finalize();
    return 0;
}
