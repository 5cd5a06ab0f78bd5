/* oshrun [options] -n N program [args...]: see args.c for the command line
 * and oshrun.h for how the pieces fit. */
#include "oshrun.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* With stdin, stdout or stderr closed, a pipe oshrun creates could land on 0-2
 * and be mistaken for them; fill any gap with /dev/null first. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            exit(1);
}

int main(int argc, char **argv)
{
    struct job j = { .stdin_pipe = -1 };
    char why[512];
    switch (parse_options(argc, argv, &j.opt, why, sizeof why)) {
    case OPT_RUN:
        break;
    case OPT_HELP:
        print_help();
        return 0;
    case OPT_VERSION:
        print_version();
        return 0;
    case OPT_USAGE:
        print_usage_error(why);
        return 2;
    }
    ensure_std_fds();
    j.size = j.opt.np;
    j.pes = calloc((size_t)j.size, sizeof *j.pes);
    if (!j.pes) {
        fprintf(stderr, "oshrun: out of memory for %d PEs\n", j.size);
        return 1;
    }
    for (int r = 0; r < j.size; r++)
        j.pes[r] = (struct pe){ .rank = r, .exited = true, .chan = -1,
                                .out = { .fd = -1, .dest = 1 }, .err = { .fd = -1, .dest = 2 } };
    setup_signals(&j);
    if (j.opt.timeout > 0)
        j.timeout_at = now_s() + j.opt.timeout;
    spawn_pes(&j);
    run_job(&j);
    free(j.pes);
    return j.status;
}
