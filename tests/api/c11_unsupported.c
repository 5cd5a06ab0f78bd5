/* Must not compile: C11 generic calls with a type the routines' tables lack. The
 * compiler's message must name the routine (tests/api/conform.cmake). */
#include <shmem.h>

struct pair {
    int a, b;
};

int main(void)
{
    static struct pair d[2], s[2];
    shmem_put(d, s, 2, 0);
    shmem_atomic_add((float *)d, 1.0f, 0);
    return 0;
}
