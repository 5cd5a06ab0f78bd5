/* RMA between every pair of memory kinds: the symmetric object in the default or the
 * device space, the local buffer host or device memory (own allocation through the
 * test helper, or a symmetric object of either space), for put, put_nbi, get, get_nbi,
 * p/g and the strided forms, at sizes from 1 byte to past the staging chunk. Each PE
 * writes to its right neighbour and checks what its left neighbour wrote. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_device.h"

#define MAX (320 * 1024) /* past one 256 KiB staging chunk */

static unsigned char *hsym, *dsym, *hloc, *dloc, *dsrc, *scratch;

static unsigned char pat(int pe, size_t i, int salt)
{
    return (unsigned char)(pe * 31 + i * 7 + salt);
}

static int is_dev(const void *p)
{
    return p == dsym || p == dloc || p == dsrc;
}

static void fill(unsigned char *buf, int pe, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = pat(pe, i, salt);
    if (is_dev(buf))
        tdev_h2d(buf, scratch, n);
    else
        memcpy(buf, scratch, n);
}

static void expect(const unsigned char *buf, int pe, size_t n, int salt, const char *what)
{
    if (is_dev(buf))
        tdev_d2h(scratch, buf, n);
    else
        memcpy(scratch, buf, n);
    for (size_t i = 0; i < n; i++)
        if (scratch[i] != pat(pe, i, salt)) {
            fprintf(stderr, "FAIL PE %d: %s, %zu bytes: byte %zu is %d, expected %d\n",
                    shmem_my_pe(), what, n, i, scratch[i], pat(pe, i, salt));
            shmem_global_exit(1);
        }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    hsym = shmem_malloc(MAX);
    dsym = shmem_space_malloc(SHMEM_SPACE_DEVICE, MAX);
    unsigned char *hsrc = shmem_malloc(MAX);
    dsrc = shmem_space_malloc(SHMEM_SPACE_DEVICE, MAX);
    hloc = malloc(MAX);
    dloc = tdev_malloc(MAX);
    scratch = malloc(MAX);
    CHECK(hsym && dsym && hsrc && dsrc && hloc && scratch);

    unsigned char *targets[] = { hsym, dsym };
    unsigned char *locals[] = { hloc, dloc, hsrc, dsrc };
    const char *tname[] = { "host object", "device object" };
    const char *lname[] = { "host buffer", "device buffer", "host-space object",
                            "device-space object" };
    size_t sizes[] = { 1, 8, 1000, MAX };
    int salt = 0;
    char what[160];

    for (int t = 0; t < 2; t++)
        for (int l = 0; l < 4; l++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                for (int v = 0; v < 4; v++) {
                    size_t n = sizes[s];
                    unsigned char *T = targets[t], *L = locals[l];
                    salt++;
                    /* put (v 0: blocking, 1: nbi + quiet) */
                    snprintf(what, sizeof what, "%s %s from %s", v & 1 ? "put_nbi" : "put",
                             tname[t], lname[l]);
                    fill(L, me, n, salt);
                    shmem_barrier_all();
                    if (v == 0)
                        shmem_putmem(T, L, n, right);
                    else if (v == 1)
                        shmem_putmem_nbi(T, L, n, right);
                    else if (v == 2)
                        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, T, L, n, right);
                    else if (n % 4 == 0 &&
                             n <= 1000) /* strided: every int, as blocks of one */
                        shmem_int_iput((int *)T, (int *)L, 1, 1, n / 4, right);
                    else
                        shmem_putmem(T, L, n, right);
                    shmem_barrier_all();
                    expect(T, left, n, salt, what);
                    /* get back what the right neighbour holds */
                    snprintf(what, sizeof what, "%s %s into %s", v & 1 ? "get_nbi" : "get",
                             tname[t], lname[l]);
                    salt++;
                    fill(T, me, n, salt);
                    shmem_barrier_all();
                    if (v == 0)
                        shmem_getmem(L, T, n, right);
                    else if (v == 1) {
                        shmem_getmem_nbi(L, T, n, right);
                        shmem_quiet();
                    } else if (v == 2)
                        shmem_ctx_getmem(SHMEM_CTX_DEFAULT, L, T, n, right);
                    else if (n % 4 == 0 && n <= 1000)
                        shmem_int_iget((int *)L, (int *)T, 1, 1, n / 4, right);
                    else
                        shmem_getmem(L, T, n, right);
                    expect(L, right, n, salt, what);
                    shmem_barrier_all();
                }

    /* shmem_p / shmem_g on a device object */
    long *dl = shmem_space_malloc(SHMEM_SPACE_DEVICE, sizeof(long));
    shmem_long_p(dl, 1000 + me, right);
    shmem_barrier_all();
    CHECK_EQ(shmem_long_g(dl, me), 1000 + left);
    CHECK_EQ(shmem_long_g(dl, right), 1000 + me);
    shmem_barrier_all();

    shmem_free(dl);
    tdev_free(dloc);
    shmem_free(dsrc);
    shmem_free(hsrc);
    shmem_free(dsym);
    shmem_free(hsym);
    free(hloc);
    free(scratch);
    tdev_passed("device.rma");
    return 0;
}
