/* Command line of oshrun. Options end at the first argument that is not one
 * (the program), so the program's own options are never taken for oshrun's. */
#include "oshrun.h"
#include "build_info.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More PEs than this cannot be what was meant (each costs processes and descriptors). */
#define NP_MAX (1 << 20)

static const char usage_line[] = "Usage: oshrun [options] -n N program [args...]\n";

static void print_help(void)
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

static _Noreturn void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("oshrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%sRun 'oshrun --help' for the options.\n", usage_line);
    exit(2);
}

/* Does arg name one of the spellings in names (NULL-terminated), alone or as
 * "name=value"? Sets *inline_val to the text after '=', or NULL. */
static bool is_opt(const char *arg, const char *const *names, const char **inline_val)
{
    for (; *names; names++) {
        size_t n = strlen(*names);
        if (strncmp(arg, *names, n))
            continue;
        if (arg[n] == '\0') {
            *inline_val = NULL;
            return true;
        }
        if (arg[n] == '=') {
            *inline_val = arg + n + 1;
            return true;
        }
    }
    return false;
}

/* The option's value: the text after '=', or the next argument. */
static const char *opt_value(int argc, char **argv, int *i, const char *inline_val)
{
    if (inline_val)
        return inline_val;
    if (*i + 1 >= argc)
        usage_error("option %s needs a value", argv[*i]);
    return argv[++*i];
}

static int parse_np(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > NP_MAX)
        usage_error("%s wants a number of PEs from 1 to %d, not '%s'", opt, NP_MAX, s);
    return (int)v;
}

static double parse_timeout(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e9)
        usage_error("--timeout wants a number of seconds, such as 60 or 2.5, not '%s'", s);
    return v;
}

static int parse_stdin(const char *s)
{
    if (!strcmp(s, "none"))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v >= NP_MAX)
        usage_error("--stdin wants 'none' or a PE number, not '%s'", s);
    return (int)v;
}

void parse_options(int argc, char **argv, struct options *opt)
{
    static const char *const np_names[] = { "-n", "-np", "--np", NULL };
    static const char *const tag_names[] = { "-l", "--tag-output", "--prefix", NULL };
    static const char *const timeout_names[] = { "--timeout", NULL };
    static const char *const stdin_names[] = { "--stdin", NULL };
    static const char *const help_names[] = { "-h", "--help", NULL };
    static const char *const version_names[] = { "-V", "--version", NULL };

    *opt = (struct options){ .np = 0, .stdin_rank = 0 };
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *val;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (is_opt(a, np_names, &val)) {
            opt->np = parse_np(a, opt_value(argc, argv, &i, val));
        } else if (!strncmp(a, "-n", 2) && a[2] >= '0' && a[2] <= '9') {
            opt->np = parse_np("-n", a + 2);       /* -n4, as mpirun users type it */
        } else if (is_opt(a, tag_names, &val) && !val) {
            opt->tag_output = true;
        } else if (is_opt(a, timeout_names, &val)) {
            opt->timeout = parse_timeout(opt_value(argc, argv, &i, val));
        } else if (is_opt(a, stdin_names, &val)) {
            opt->stdin_rank = parse_stdin(opt_value(argc, argv, &i, val));
        } else if (is_opt(a, help_names, &val) && !val) {
            print_help();
            exit(0);
        } else if (is_opt(a, version_names, &val) && !val) {
            printf("oshrun (Shoal) %s, OpenSHMEM %s\n", SHOAL_VERSION_STRING, SHOAL_SPEC_VERSION);
            exit(0);
        } else {
            usage_error("unknown option '%s'", a);
        }
    }
    if (i >= argc)
        usage_error("no program to run was given");
    if (opt->np == 0)
        usage_error("give the number of PEs with -n N");
    if (opt->stdin_rank >= opt->np)
        usage_error("--stdin %d names a PE outside 0..%d", opt->stdin_rank, opt->np - 1);
    opt->argv = argv + i;
}
