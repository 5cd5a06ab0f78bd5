/* Shoal's own way into MPI, for the bootstrap (mpi_boot.c) and the transport
 * (mpi_init.c). With an MPI-4 library each opens an MPI session: its communicator over
 * mpi://WORLD does not depend on the application's MPI_Init or MPI_Finalize, so the
 * application may call those before or after shmem_init and shmem_finalize. An MPI-3
 * library has only MPI_COMM_WORLD, which Shoal starts when the application has not:
 * the application must then call MPI_Init first and MPI_Finalize last. */
#include <string.h>

#include "transport/mpi/mpi_tr.h"

#if MPI_VERSION >= 4
static int level_of(const char *name)
{
    static const int levels[] = { MPI_THREAD_MULTIPLE, MPI_THREAD_SERIALIZED,
                                  MPI_THREAD_FUNNELED };
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++)
        if (!strcmp(name, mpi_level_name(levels[i])))
            return levels[i];
    return MPI_THREAD_SINGLE;
}

int mpi_world_open(struct mpi_world *w, int want, int *have, const char *tag)
{
    int down = 0;
    /* MPICH 4.0 crashes in MPI_Session_init after MPI_Finalize. */
    MPI_Finalized(&down);
    if (down)
        return MPI_WORLD_FINALIZED;
    mpi_env_defaults();
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", mpi_level_name(want));
    int rc = MPI_Session_init(info, MPI_ERRORS_RETURN, &w->session);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return MPI_WORLD_FAILED;
    MPI_Group group;
    rc = MPI_Group_from_session_pset(w->session, "mpi://WORLD", &group);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL,
                                        &w->comm);
        MPI_Group_free(&group);
    }
    if (rc != MPI_SUCCESS) {
        MPI_Session_finalize(&w->session);
        return MPI_WORLD_FAILED;
    }
    char name[MPI_MAX_INFO_VAL + 1] = "";
    int len = (int)sizeof name, found = 0;
    if (MPI_Session_get_info(w->session, &info) == MPI_SUCCESS) {
        MPI_Info_get_string(info, "thread_level", &len, name, &found);
        MPI_Info_free(&info);
    }
    *have = found ? level_of(name) : MPI_THREAD_SINGLE;
    w->own_mpi = 1;
    return 0;
}

void mpi_world_close(struct mpi_world *w)
{
    if (w->comm == MPI_COMM_NULL)
        return;
    MPI_Comm_free(&w->comm);
    MPI_Session_finalize(&w->session);
    w->own_mpi = 0;
}

int mpi_world_lost(const struct mpi_world *w)
{
    (void)w;
    return 0;
}

const char *mpi_world_kind(const struct mpi_world *w)
{
    (void)w;
    return "an MPI session of Shoal's own";
}
#else
int mpi_world_open(struct mpi_world *w, int want, int *have, const char *tag)
{
    (void)tag;
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (down)
        return MPI_WORLD_FINALIZED;
    if (!up) {
        mpi_env_defaults();
        if (MPI_Init_thread(NULL, NULL, want, have) != MPI_SUCCESS)
            return MPI_WORLD_FAILED;
        w->own_mpi = 1;
    } else {
        MPI_Query_thread(have);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &w->comm);
    return 0;
}

/* After the application's MPI_Finalize nothing of MPI's may be called, not even
 * MPI_Comm_free. */
void mpi_world_close(struct mpi_world *w)
{
    if (w->comm != MPI_COMM_NULL && !mpi_world_lost(w)) {
        MPI_Comm_free(&w->comm);
        if (w->own_mpi)
            MPI_Finalize();
    }
    w->comm = MPI_COMM_NULL;
    w->own_mpi = 0;
}

int mpi_world_lost(const struct mpi_world *w)
{
    (void)w;
    int down = 0;
    MPI_Finalized(&down);
    return down;
}

const char *mpi_world_kind(const struct mpi_world *w)
{
    return w->own_mpi ? "MPI_COMM_WORLD, MPI started by Shoal"
                      : "MPI_COMM_WORLD, MPI started by the application";
}
#endif
