/* Deprecated (1.1) include path, still required. */
#include <shmem.h>
