/* What oshrun prints about its command line: --help, --version, usage errors. */
#include "oshrun.h"
#include "build_info.h"

#include <stdio.h>

static const char usage_line[] = "Usage: oshrun [options] -n N program [args...]\n";

void print_help(void)
{
    printf("%s", usage_line);
    printf("Runs N processes (PEs) of an OpenSHMEM program built with Shoal on this "
           "machine.\n"
           "\n"
           "Options:\n"
           "  -n N, -np N, --np N     number of PEs to start (at least 1)\n"
           "  -N N, --npernode N      PEs per node; alone, that many PEs here; with a "
           "larger\n"
           "                          -n the job needs more nodes and goes to mpirun "
           "(below)\n"
           "  -l, --tag-output, --prefix\n"
           "                          prefix each line a PE prints with its number: \"[3] "
           "text\"\n"
           "  --output-filename DIR   also write PE r's output to DIR/1/rank.r/stdout and\n"
           "                          stderr (r padded to the digits of N, as Open MPI "
           "does)\n"
           "  --stdin all|none|PE     which PEs read oshrun's standard input (default 0);\n"
           "                          the others read /dev/null\n"
           "  -x VAR[=value]          set VAR for the PEs (VAR alone: pass oshrun's value "
           "on)\n"
           "  -wdir DIR, --wdir DIR   run the PEs in DIR (a relative program path is looked\n"
           "                          up from there)\n"
           "  --bind-to core|hwthread|socket|package|numa|l3cache|none\n"
           "                          where each PE may run; by default (SHOAL_BIND=auto) "
           "each\n"
           "                          PE gets a core of its own when the PEs fit the cores\n"
           "                          oshrun may use (its CPU mask and cgroup), else a\n"
           "                          hardware thread of its own, else the kernel places "
           "them;\n"
           "                          package, numa and l3cache: the object around its core\n"
           "  --report-bindings       print each PE's CPUs, NUMA domain, GPU and NIC on "
           "stderr\n"
           "                          before starting it\n"
           "  --dry-run               print the placement as --report-bindings does and "
           "start\n"
           "                          nothing (with SHOAL_TOPOLOGY_FILE: plan another node)\n"
           "  --map-by core|slot|node|socket|package|numa|l3cache|gpu|hwthread\n"
           "                          the order PEs take cores in: one after another (core,\n"
           "                          slot, node), round robin over sockets, NUMA domains "
           "or\n"
           "                          L3 caches, the cores nearest GPU r mod GPUs (gpu), "
           "or\n"
           "                          filling each core's threads first (hwthread)\n"
           "  --timeout SECONDS       end the job if it runs longer, report the PEs still\n"
           "                          running and exit with status 124; 0 means no limit\n"
           "  -H, --host LIST, --hostfile FILE\n"
           "                          hosts for the job; this machine's own names are fine,\n"
           "                          any other host hands the job to a PMIx launcher in "
           "PATH\n"
           "                          (prterun or Open MPI's mpirun) with the same options\n"
           "  --oversubscribe, --allow-run-as-root, --mca NAME VALUE\n"
           "                          accepted for Open MPI job scripts; they change "
           "nothing\n"
           "                          here (oshrun always allows more PEs than cores) and "
           "are\n"
           "                          passed on when the job is handed to mpirun\n"
           "  -h, --help              print this help and exit\n"
           "  -V, --version           print the Shoal version and exit\n"
           "  --                      end of options (for a program whose name starts with "
           "-)\n"
           "\n"
           "Each PE finds its number and its launcher channel in SHOAL_RANK, SHOAL_SIZE and\n"
           "SHOAL_BOOT_FD, and its binding in SHOAL_BINDING. Output is passed on as it "
           "arrives;\n"
           "a line stays whole unless the PE leaves it unfinished for a moment. When a PE\n"
           "crashes, exits with a nonzero status, exits without calling shmem_finalize, or "
           "calls\n"
           "shmem_global_exit, the other PEs are ended (SIGTERM, then SIGKILL 2 s later).\n"
           "SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to oshrun are passed on to every PE.\n"
           "SIGUSR1 (and SIGQUIT, and --timeout, before ending the job) makes every PE say\n"
           "which Shoal routine it is blocked in.\n"
           "PEs that exit without ever calling shmem_init get a warning: the program may "
           "not\n"
           "be linked with Shoal, and then each of its processes ran alone.\n"
           "\n"
           "Exit status: the worst exit status of the PEs (0 when all succeed); the status\n"
           "given to shmem_global_exit; 128+S when a PE was killed by signal S or oshrun "
           "got\n"
           "signal S; 124 on --timeout; 127 when the program cannot be run; 2 for bad "
           "usage.\n");
}

void print_version(void)
{
    printf("oshrun (Shoal) %s, OpenSHMEM %s\n", SHOAL_VERSION_STRING, SHOAL_SPEC_VERSION);
}

void print_usage_error(const char *why)
{
    fprintf(stderr, "oshrun: %s\n%sRun 'oshrun --help' for the options.\n", why, usage_line);
}
