/* Fuzz target: oshrun's command line (tools/oshrun/args.c). The input is the
 * arguments after "oshrun", separated by NUL bytes. */
#include "oshrun.h"
#include "fuzz_check.h"

#include <math.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[4096];
    if (size >= sizeof buf)
        size = sizeof buf - 1;
    memcpy(buf, data, size);
    buf[size] = '\0';

    char *argv[MAX_ARGS + 2] = { "oshrun" };
    int argc = 1;
    for (size_t at = 0; at < size && argc <= MAX_ARGS; at += strlen(buf + at) + 1)
        argv[argc++] = buf + at;
    argv[argc] = NULL;

    struct options opt;
    char err[256];
    memset(err, 'x', sizeof err);
    switch (parse_options(argc, argv, &opt, err, sizeof err)) {
    case OPT_RUN:
        FUZZ_CHECK(opt.np >= 1 && opt.np <= OSHRUN_NP_MAX);
        FUZZ_CHECK(opt.stdin_rank >= STDIN_ALL && opt.stdin_rank < opt.np);
        FUZZ_CHECK(isfinite(opt.timeout) && opt.timeout >= 0);
        FUZZ_CHECK(opt.argv > argv && opt.argv < argv + argc && *opt.argv);
        break;
    case OPT_USAGE: FUZZ_CHECK(memchr(err, '\0', sizeof err) && err[0] != '\0'); break;
    case OPT_HELP:
    case OPT_VERSION: break;
    default: FUZZ_CHECK(!"parse_options returned an unknown result");
    }
    return 0;
}
