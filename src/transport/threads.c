/* The contexts of the threads registered with shmemx_thread_register (transport.h):
 * a quiet on the default context completes them too, so that shmem_quiet and the
 * barriers still complete every thread's default-context operations. The lock keeps
 * a context from being destroyed while another thread's quiet uses it. */
#include <pthread.h>
#include <stdlib.h>

#include "transport/transport.h"
#include "env/log.h"

__thread struct shoal_ctx *shoal_thread_ctx;
int shoal_threads_registered;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct shoal_ctx **reg;
static int nreg, cap;

int shoal_threads_add(struct shoal_ctx *ctx, int max)
{
    pthread_mutex_lock(&lock);
    if (nreg >= max) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    if (nreg == cap) {
        int ncap = cap ? 2 * cap : 8;
        struct shoal_ctx **n = realloc(reg, (size_t)ncap * sizeof *n);
        if (!n)
            shoal_fatal("shmemx_thread_register", "out of memory for %d threads", ncap);
        reg = n;
        cap = ncap;
    }
    reg[nreg++] = ctx;
    SHOAL_LOG(TEAM, DEBUG, "registered thread %d of at most %d: context %p", nreg, max,
              (void *)ctx);
    __atomic_store_n(&shoal_threads_registered, nreg, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
    return 0;
}

void shoal_threads_remove(struct shoal_ctx *ctx)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nreg; i++)
        if (reg[i] == ctx) {
            reg[i] = reg[--nreg];
            break;
        }
    __atomic_store_n(&shoal_threads_registered, nreg, __ATOMIC_RELAXED);
    if (!nreg) {
        free(reg);
        reg = NULL;
        cap = 0;
    }
    pthread_mutex_unlock(&lock);
}

void shoal_threads_quiet(int pe)
{
    pthread_mutex_lock(&lock);
    SHOAL_LOG(TEAM, TRACE, "quiet of the default context: %d registered thread(s) too", nreg);
    for (int i = 0; i < nreg; i++)
        if (pe < 0)
            shoal_tp_quiet(reg[i]);
        else
            shoal_tp_pe_quiet(reg[i], pe);
    pthread_mutex_unlock(&lock);
}
