/* A minimal profiling tool: it defines a few shmem_ routines itself, counts the
 * calls and forwards each one to its pshmem_ twin, as the 1.5 profiling interface
 * allows. The test reads the counts through shoal_prof_count, found with dlsym so
 * that the same program works whether this library was linked in or preloaded. */
#include <pshmem.h>
#include <shmemx.h>
#include <string.h>

enum { PUT, PUTMEM, BARRIER_ALL, PCONTROL, SPACE_MALLOC, NROUTINES };
static const char *const routine_name[NROUTINES] = { "shmem_long_put", "shmem_putmem",
                                                     "shmem_barrier_all", "shmem_pcontrol",
                                                     "shmem_space_malloc" };
static _Atomic long calls[NROUTINES];
static _Atomic int last_level = 1;

/* Calls of routine seen so far, or -1 for a routine this tool does not wrap. */
long shoal_prof_count(const char *routine)
{
    for (int k = 0; k < NROUTINES; k++)
        if (strcmp(routine, routine_name[k]) == 0)
            return calls[k];
    return -1;
}

int shoal_prof_level(void)
{
    return last_level;
}

void shmem_long_put(long *dest, const long *source, size_t nelems, int pe)
{
    calls[PUT]++;
    pshmem_long_put(dest, source, nelems, pe);
}

/* An extension routine (shmemx.h) has its twin too. */
void *shmem_space_malloc(shmem_space_t space, size_t size)
{
    calls[SPACE_MALLOC]++;
    return pshmem_space_malloc(space, size);
}

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    calls[PUTMEM]++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_barrier_all(void)
{
    calls[BARRIER_ALL]++;
    pshmem_barrier_all();
}

/* Levels above 2 would carry tool-defined arguments; this tool defines none. */
void shmem_pcontrol(int level, ...)
{
    calls[PCONTROL]++;
    last_level = level;
    pshmem_pcontrol(level);
}
