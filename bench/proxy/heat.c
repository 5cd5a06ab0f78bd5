/* 2-D heat equation (Jacobi) on an N x N interior with fixed edges (top edge 1.0, the
 * others 0.0), rows split across PEs (seed 003, section 4.4). Each iteration every
 * PE sends its first and last rows into its neighbours' ghost rows with put-with-signal
 * (put + fence + atomic set on libraries before OpenSHMEM 1.5) and waits for theirs.
 * Ghost rows are double-buffered by iteration parity: a neighbour can be at most one
 * iteration ahead, so it never overwrites a row still to be read. Afterwards every PE
 * recomputes the whole grid serially and compares its own rows. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct grid {
    int n;            /* interior is n x n; rows and columns 0 and n+1 are the fixed edges */
    int row0, rows;   /* first global interior row (1-based) owned here, and how many */
    double *u, *next; /* (rows + 2) x (n + 2), private */
    double *ghost_up; /* symmetric [2][n+2]: the row above mine, written by PE me-1 */
    double *ghost_dn; /* symmetric [2][n+2]: the row below mine, written by PE me+1 */
    uint64_t *sig;    /* symmetric [4]: ghost_up parity 0/1, ghost_dn parity 0/1 */
};

#define AT(g, a, i, j) ((a)[(size_t)(i) * (size_t)((g)->n + 2) + (size_t)(j)])

static void send_row(struct grid *g, const double *row, double *ghost, uint64_t *sig,
                     uint64_t value, int pe)
{
    size_t bytes = (size_t)(g->n + 2) * sizeof(double);
#if BENCH_HAVE_SPEC_1_5
    shmem_putmem_signal(ghost, row, bytes, sig, value, SHMEM_SIGNAL_SET, pe);
#else
    shmem_putmem(ghost, row, bytes, pe);
    shmem_fence();
    shmem_ulong_atomic_set(sig, value, pe);
#endif
}

static void wait_signal(uint64_t *sig, uint64_t value)
{
#if BENCH_HAVE_SPEC_1_5
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, value);
#else
    shmem_ulong_wait_until(sig, SHMEM_CMP_GE, value);
#endif
}

static void sweep(int n, int rows, const double *u, double *next)
{
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= n; j++)
            next[(size_t)i * (n + 2) + j] = 0.25 *
                    (u[(size_t)(i - 1) * (n + 2) + j] + u[(size_t)(i + 1) * (n + 2) + j] +
                     u[(size_t)i * (n + 2) + j - 1] + u[(size_t)i * (n + 2) + j + 1]);
}

/* One iteration: exchange the edge rows of `u`, then compute `next` from it. */
static void step(struct grid *g, int t)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), par = t & 1;
    size_t w = (size_t)g->n + 2;
    if (me > 0)
        send_row(g, &AT(g, g->u, 1, 0), &g->ghost_dn[par * w], &g->sig[2 + par], t + 1,
                 me - 1);
    if (me < npes - 1)
        send_row(g, &AT(g, g->u, g->rows, 0), &g->ghost_up[par * w], &g->sig[par], t + 1,
                 me + 1);
    if (me > 0) {
        wait_signal(&g->sig[par], t + 1);
        memcpy(&AT(g, g->u, 0, 0), &g->ghost_up[par * w], w * sizeof(double));
    }
    if (me < npes - 1) {
        wait_signal(&g->sig[2 + par], t + 1);
        memcpy(&AT(g, g->u, g->rows + 1, 0), &g->ghost_dn[par * w], w * sizeof(double));
    }
    sweep(g->n, g->rows, g->u, g->next);
    double *tmp = g->u;
    g->u = g->next;
    g->next = tmp;
}

/* Fills rows [first, first+count) of the global grid's initial state into `a`, whose
 * row 0 is global row first-1 (edges included). */
static void init_rows(int n, int first, int count, double *a)
{
    for (int i = 0; i < count + 2; i++)
        for (int j = 0; j < n + 2; j++)
            a[(size_t)i * (n + 2) + j] = (first - 1 + i == 0) ? 1.0 : 0.0;
}

/* Largest difference between this PE's rows and a serial run of the same iterations. */
static double serial_error(const struct grid *g, int iters)
{
    int n = g->n;
    size_t cells = (size_t)(n + 2) * (n + 2);
    double *a = malloc(cells * sizeof *a), *b = malloc(cells * sizeof *b);
    if (!a || !b)
        shmem_global_exit(1);
    init_rows(n, 1, n, a);
    memcpy(b, a, cells * sizeof *a);
    for (int t = 0; t < iters; t++) {
        sweep(n, n, a, b);
        double *tmp = a;
        a = b;
        b = tmp;
    }
    double err = 0;
    for (int i = 1; i <= g->rows; i++)
        for (int j = 1; j <= n; j++)
            err = fmax(err,
                       fabs(AT(g, g->u, i, j) - a[(size_t)(g->row0 + i - 1) * (n + 2) + j]));
    free(a);
    free(b);
    return err;
}

static long failures; /* symmetric: PEs whose rows differ from the serial run */

int main(int argc, char **argv)
{
    int n = 512, iters = 200, check = 1, c;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    while ((c = getopt(argc, argv, "n:t:xh")) != -1) {
        switch (c) {
        case 'n': n = atoi(optarg); break;
        case 't': iters = atoi(optarg); break;
        case 'x': check = 0; break;
        default:
            if (me == 0)
                fprintf(stderr,
                        "usage: %s [-n interior size] [-t iterations] [-x: skip the serial "
                        "check]\n",
                        argv[0]);
            shmem_finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    if (n < npes || iters < 1) {
        if (me == 0)
            fprintf(stderr, "heat: need size >= number of PEs (%d) and iterations >= 1\n",
                    npes);
        shmem_finalize();
        return 2;
    }
    struct grid g = { .n = n };
    int base = n / npes, extra = n % npes;
    g.rows = base + (me < extra);
    g.row0 = 1 + me * base + (me < extra ? me : extra);
    size_t w = (size_t)n + 2, cells = (size_t)(g.rows + 2) * w;
    g.u = malloc(cells * sizeof(double));
    g.next = malloc(cells * sizeof(double));
    g.ghost_up = shmem_malloc(2 * w * sizeof(double));
    g.ghost_dn = shmem_malloc(2 * w * sizeof(double));
    g.sig = shmem_calloc(4, sizeof(uint64_t));
    if (!g.u || !g.next || !g.ghost_up || !g.ghost_dn || !g.sig)
        shmem_global_exit(1);
    init_rows(n, g.row0, g.rows, g.u);
    memcpy(g.next, g.u, cells * sizeof(double));
    shmem_barrier_all();

    double t0 = bench_now();
    for (int t = 0; t < iters; t++)
        step(&g, t);
    shmem_barrier_all();
    double secs = bench_now() - t0;

    double err = check ? serial_error(&g, iters) : 0;
    if (err > 1e-12)
        shmem_long_atomic_inc(&failures, 0);
    shmem_barrier_all();
    if (me == 0) {
        double mlups = (double)n * n * iters / secs / 1e6;
        bench_header("2-D Jacobi heat, halo exchange by put-with-signal", "");
        printf("# %-8s %8s %12s %14s  %s\n", "Size", "Iters", "Time (s)", "MLUPS", "Check");
        printf("  %-8d %8d %12.4f %14.2f  %s\n", n, iters, secs, mlups,
               !check             ? "SKIPPED"
                       : failures ? "FAILED"
                                  : "PASSED");
        bench_result("heat", (size_t)n, "time_s", secs);
        bench_result("heat", (size_t)n, "rate_MLUPS", mlups);
    }
    int status = failures != 0;
    shmem_barrier_all();
    shmem_free(g.sig);
    shmem_free(g.ghost_dn);
    shmem_free(g.ghost_up);
    free(g.next);
    free(g.u);
    shmem_finalize();
    return status;
}
