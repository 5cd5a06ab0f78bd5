/* The program every install check builds: each PE names itself. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    printf("hello from PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    return 0;
}
