/* A first Shoal program: every PE writes into its neighbour's symmetric memory,
 * adds to a counter on PE 0 atomically, and reads a value back with a get.
 * Build: oshcc demo.c -o demo    Run: oshrun -n 4 ./demo */
#include <shmem.h>
#include <stdio.h>

static long total; /* globals are symmetric too */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *inbox = shmem_malloc(sizeof(int));

    /* Put: give my right-hand neighbour my PE number. */
    shmem_int_p(inbox, me, (me + 1) % n);
    /* Atomic: everyone adds its PE number to PE 0's total. */
    shmem_long_atomic_add(&total, me, 0);
    shmem_barrier_all();

    /* Get: read what my left-hand neighbour received. */
    int left = (me + n - 1) % n;
    int seen = shmem_int_g(inbox, left);
    printf("PE %d of %d: my inbox holds %d (expected %d); PE %d's inbox holds %d (expected "
           "%d)\n",
           me, n, *inbox, left, left, seen, (left + n - 1) % n);
    if (me == 0)
        printf("PE 0: total of all PE numbers = %ld (expected %d)\n",
               shmem_long_atomic_fetch(&total, 0), n * (n - 1) / 2);

    shmem_free(inbox);
    shmem_finalize();
    return 0;
}
