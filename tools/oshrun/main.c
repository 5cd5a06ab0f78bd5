/* oshrun [options] -n N program [args...]: see args.c for the command line
 * and oshrun.h for how the pieces fit. */
#include "oshrun.h"
#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* With stdin, stdout or stderr closed, a pipe oshrun creates could land on 0-2
 * and be mistaken for them; fill any gap with /dev/null first. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            exit(1);
}

/* The variables oshrun and its PEs read, refused here before any PE starts
 * (the PEs would refuse them one by one): 0, or 2 after a message. */
static int check_env(void)
{
    char err[512];
    /* The user's variables; the launcher's own oshrun replaces for its PEs. */
    for (size_t i = 0; i < shoal_env_nvars; i++)
        if (shoal_env_vars[i].cls == SHOAL_ENV_CLASS_USER &&
            shoal_env_check(shoal_env_vars[i].name, err, sizeof err)) {
            fprintf(stderr, "oshrun: %s\n", err);
            return 2;
        }
    const char *dir = shoal_env_value("SHOAL_BIND_LOCKDIR");
    struct stat st;
    int why = !*dir ? 0 : stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (why) {
        fprintf(stderr,
                "oshrun: SHOAL_BIND_LOCKDIR=\"%s\" is not valid: %s; name an existing "
                "directory that every user's jobs may write to, such as /tmp, or set it "
                "empty for no CPU locks\n",
                dir, strerror(why));
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct job j = { 0 };
    char why[512];
    switch (parse_options(argc, argv, &j.opt, why, sizeof why)) {
    case OPT_RUN: break;
    case OPT_HELP: print_help(); return 0;
    case OPT_VERSION: print_version(); return 0;
    case OPT_USAGE: print_usage_error(why); return 2;
    }
    ensure_std_fds();
    maybe_hand_off(&j.opt);
    if (!j.opt.bind_given) {
        const char *env = shoal_env_value("SHOAL_BIND");
        if (*env && bind_parse(env, &j.opt.bind)) {
            fprintf(stderr,
                    "oshrun: SHOAL_BIND=\"%s\" is not valid: expected auto, core, "
                    "hwthread, socket, package, numa, l3cache or none\n",
                    env);
            return 2;
        }
    }
    int bad = check_env();
    if (bad)
        return bad;
    j.size = j.opt.np;
    if (j.opt.dry_run && j.opt.npernode && j.opt.np > j.opt.npernode) {
        /* Every node is placed alike: show the first. */
        fprintf(stderr, "oshrun: --dry-run: the first node's %d PEs of %d\n", j.opt.npernode,
                j.opt.np);
        j.size = j.opt.npernode;
    }
    j.pes = calloc((size_t)j.size, sizeof *j.pes);
    if (!j.pes) {
        fprintf(stderr, "oshrun: out of memory for %d PEs\n", j.size);
        return 1;
    }
    for (int r = 0; r < j.size; r++)
        j.pes[r] = (struct pe){ .rank = r,
                                .exited = true,
                                .chan = -1,
                                .stdin_fd = -1,
                                .out = { .fd = -1, .dest = 1, .file = -1 },
                                .err = { .fd = -1, .dest = 2, .file = -1 } };
    if (j.opt.dry_run)
        place_job(&j); /* exits */
    setup_signals(&j);
    streams_init(&j);
    if (j.opt.timeout > 0)
        j.timeout_at = now_s() + j.opt.timeout;
    spawn_pes(&j);
    run_job(&j);
    if (j.never_connected && !j.ending) {
        streams_settle(&j); /* a PE's last line may be open */
        fprintf(stderr,
                "oshrun: warning: %d of %d PEs exited without ever calling shmem_init; if "
                "%s is not an OpenSHMEM program linked with Shoal, each of its processes ran "
                "alone instead of as one job (build it with oshcc, or start it with the "
                "launcher of the OpenSHMEM it was built with)\n",
                j.never_connected, j.size, j.opt.argv[0]);
    }
    stdin_close_all(&j);
    bind_plan_free(&j.bind);
    free(j.pes);
    return j.status;
}
