/* The smallest OpenSHMEM program: what bad_env.c starts with bad variables. */
#include <shmem.h>

int main(void)
{
    shmem_init();
    shmem_finalize();
    return 0;
}
