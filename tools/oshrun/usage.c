/* What oshrun prints about its command line: --help, --version, usage errors. */
#include "oshrun.h"
#include "build_info.h"

#include <stdio.h>

static const char usage_line[] = "Usage: oshrun [options] -n N program [args...]\n";

void print_help(void)
{
    printf("%s", usage_line);
    printf("Runs N processes (PEs) of an OpenSHMEM program built with Shoal on this machine.\n"
           "\n"
           "Options:\n"
           "  -n N, -np N, --np N     number of PEs to start (required, at least 1)\n"
           "  -l, --tag-output, --prefix\n"
           "                          prefix each line a PE prints with its number: \"[3] text\"\n"
           "  --timeout SECONDS       end the job if it runs longer, report the PEs still\n"
           "                          running and exit with status 124; 0 means no limit\n"
           "  --stdin none|PE         which PE reads oshrun's standard input (default 0);\n"
           "                          with none, or for the other PEs, it is /dev/null\n"
           "  -h, --help              print this help and exit\n"
           "  -V, --version           print the Shoal version and exit\n"
           "  --                      end of options (for a program whose name starts with -)\n"
           "\n"
           "Each PE finds its number and its launcher channel in SHOAL_RANK, SHOAL_SIZE and\n"
           "SHOAL_BOOT_FD. Output is passed on whole lines at a time. When a PE crashes, exits\n"
           "with a nonzero status, exits without calling shmem_finalize, or calls\n"
           "shmem_global_exit, the other PEs are ended (SIGTERM, then SIGKILL 2 s later).\n"
           "SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to oshrun are passed on to every PE.\n"
           "\n"
           "Exit status: the worst exit status of the PEs (0 when all succeed); the status\n"
           "given to shmem_global_exit; 128+S when a PE was killed by signal S or oshrun got\n"
           "signal S; 124 on --timeout; 127 when the program cannot be run; 2 for bad usage.\n");
}

void print_version(void)
{
    printf("oshrun (Shoal) %s, OpenSHMEM %s\n", SHOAL_VERSION_STRING, SHOAL_SPEC_VERSION);
}

void print_usage_error(const char *why)
{
    fprintf(stderr, "oshrun: %s\n%sRun 'oshrun --help' for the options.\n", why, usage_line);
}
