/* Command line of oshrun, parsed without side effects (no output, no exit) so
 * that the fuzz target fuzz/fuzz_oshrun_args.c can drive it. Options end at the
 * first argument that is not one (the program), so the program's own options
 * are never taken for oshrun's. */
#include "oshrun.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct parser {
    int argc;
    char *const *argv;
    int i; /* argument being parsed */
    char *err;
    size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errlen, fmt, ap);
    va_end(ap);
    return -1;
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

/* The option's value: the text after '=', or the next argument; NULL if missing. */
static const char *opt_value(struct parser *p, const char *inline_val)
{
    if (inline_val)
        return inline_val;
    if (p->i + 1 >= p->argc) {
        fail(p, "option %s needs a value", p->argv[p->i]);
        return NULL;
    }
    return p->argv[++p->i];
}

static int parse_np(struct parser *p, const char *opt, const char *s, int *np)
{
    if (!s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > OSHRUN_NP_MAX)
        return fail(p, "%s wants a number of PEs from 1 to %d, not '%s'", opt, OSHRUN_NP_MAX,
                    s);
    *np = (int)v;
    return 0;
}

static int parse_timeout(struct parser *p, const char *s, double *timeout)
{
    if (!s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e9)
        return fail(p, "--timeout wants a number of seconds, such as 60 or 2.5, not '%s'", s);
    *timeout = v;
    return 0;
}

static int parse_stdin(struct parser *p, const char *s, int *rank)
{
    if (!s)
        return -1;
    if (!strcmp(s, "none")) {
        *rank = STDIN_NONE;
        return 0;
    }
    if (!strcmp(s, "all")) {
        *rank = STDIN_ALL;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v >= OSHRUN_NP_MAX)
        return fail(p, "--stdin wants 'all', 'none' or a PE number, not '%s'", s);
    *rank = (int)v;
    return 0;
}

static int parse_bind(struct parser *p, const char *s, struct options *opt)
{
    if (!s)
        return -1;
    if (bind_parse(s, &opt->bind))
        return fail(p,
                    "--bind-to wants core, hwthread, socket, package, numa, l3cache or none, "
                    "not '%s'",
                    s);
    opt->bind_given = true;
    opt->bind_arg = s;
    return 0;
}

/* --map-by on one node: core, slot and node hand out cores in order, socket
 * alternates between sockets, hwthread fills each core's threads in turn.
 * Open MPI's :OVERSUBSCRIBE and :NOOVERSUBSCRIBE qualifiers change nothing. */
static int parse_map(struct parser *p, const char *s, struct options *opt)
{
    if (!s)
        return -1;
    static const struct {
        const char *name;
        enum map_by map;
    } maps[] = {
        { "core", MAP_CORE },     { "slot", MAP_CORE },       { "node", MAP_CORE },
        { "socket", MAP_SOCKET }, { "package", MAP_SOCKET },  { "hwthread", MAP_HWTHREAD },
        { "numa", MAP_NUMA },     { "l3cache", MAP_L3CACHE }, { "gpu", MAP_GPU },
    };
    size_t n = strcspn(s, ":");
    const char *qual = s + n;
    while (*qual == ':') {
        qual++;
        size_t q = strcspn(qual, ":,");
        if (strncasecmp(qual, "oversubscribe", q) && strncasecmp(qual, "nooversubscribe", q))
            return fail(p,
                        "--map-by qualifier '%.*s' is not supported by oshrun (only "
                        "OVERSUBSCRIBE); use mpirun for ppr, PE=n and the like",
                        (int)q, qual);
        qual += q;
        if (*qual == ',')
            qual++;
    }
    opt->map_arg = s;
    if (n == 0) /* "--map-by :OVERSUBSCRIBE" */
        return 0;
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        if (strlen(maps[i].name) == n && !strncasecmp(s, maps[i].name, n)) {
            opt->map = maps[i].map;
            return 0;
        }
    return fail(p,
                "--map-by wants core, slot, node, socket, package, numa, l3cache, gpu or "
                "hwthread, not '%.*s'",
                (int)n, s);
}

static int parse_env(struct parser *p, const char *s, struct options *opt)
{
    if (!s)
        return -1;
    size_t n = strcspn(s, "=");
    if (n == 0 || isdigit((unsigned char)s[0]) ||
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != n)
        return fail(p, "-x wants an environment variable name, VAR or VAR=value, not '%s'",
                    s);
    if (opt->n_env == OSHRUN_X_MAX)
        return fail(p, "more than %d -x options", OSHRUN_X_MAX);
    opt->env[opt->n_env++] = s;
    return 0;
}

static int parse_string(struct parser *p, const char *s, const char **out)
{
    if (!s)
        return -1;
    if (!*s)
        return fail(p, "an empty value was given to an option that needs one");
    *out = s;
    return 0;
}

enum opt_result parse_options(int argc, char *const *argv, struct options *opt, char *err,
                              size_t errlen)
{
    static const char *const np_names[] = { "-n", "-np", "--np", "-c", NULL };
    static const char *const npn_names[] = { "-N", "--npernode", "-npernode", NULL };
    static const char *const tag_names[] = { "-l", "--tag-output", "-tag-output", "--prefix",
                                             NULL };
    static const char *const timeout_names[] = { "--timeout", NULL };
    static const char *const stdin_names[] = { "--stdin", "-stdin", NULL };
    static const char *const bind_names[] = { "--bind-to", "-bind-to", NULL };
    static const char *const map_names[] = { "--map-by", "-map-by", NULL };
    static const char *const x_names[] = { "-x", NULL };
    static const char *const wdir_names[] = { "-wdir", "--wdir", "-wd", "--wd", NULL };
    static const char *const outfile_names[] = { "--output-filename", "-output-filename",
                                                 NULL };
    static const char *const host_names[] = { "-H", "--host", "-host", NULL };
    static const char *const hostfile_names[] = { "--hostfile", "-hostfile", "--machinefile",
                                                  "-machinefile", NULL };
    static const char *const mca_names[] = { "--mca", "-mca", NULL };
    static const char *const overs_names[] = { "--oversubscribe", "-oversubscribe", NULL };
    static const char *const root_names[] = { "--allow-run-as-root", NULL };
    static const char *const report_names[] = { "--report-bindings", "-report-bindings",
                                                NULL };
    static const char *const dry_names[] = { "--dry-run", "-dry-run", NULL };
    static const char *const help_names[] = { "-h", "--help", NULL };
    static const char *const version_names[] = { "-V", "--version", NULL };

    struct parser p = { .argc = argc, .argv = argv, .i = 1, .err = err, .errlen = errlen };
    *opt = (struct options){ .np = 0, .stdin_rank = 0 };
    for (; p.i < argc && argv[p.i][0] == '-'; p.i++) {
        const char *a = argv[p.i], *val;
        int rc = 0;
        if (!strcmp(a, "--")) {
            p.i++;
            break;
        }
        if (is_opt(a, np_names, &val)) {
            rc = parse_np(&p, a, opt_value(&p, val), &opt->np);
        } else if (!strncmp(a, "-n", 2) && a[2] >= '0' && a[2] <= '9') {
            rc = parse_np(&p, "-n", a + 2, &opt->np); /* -n4, as mpirun users type it */
        } else if (is_opt(a, npn_names, &val)) {
            rc = parse_np(&p, a, opt_value(&p, val), &opt->npernode);
        } else if (is_opt(a, tag_names, &val) && !val) {
            opt->tag_output = true;
        } else if (is_opt(a, timeout_names, &val)) {
            rc = parse_timeout(&p, opt_value(&p, val), &opt->timeout);
        } else if (is_opt(a, stdin_names, &val)) {
            rc = parse_stdin(&p, opt_value(&p, val), &opt->stdin_rank);
        } else if (is_opt(a, bind_names, &val)) {
            rc = parse_bind(&p, opt_value(&p, val), opt);
        } else if (is_opt(a, map_names, &val)) {
            rc = parse_map(&p, opt_value(&p, val), opt);
        } else if (is_opt(a, x_names, &val)) {
            rc = parse_env(&p, opt_value(&p, val), opt);
        } else if (is_opt(a, wdir_names, &val)) {
            rc = parse_string(&p, opt_value(&p, val), &opt->wdir);
        } else if (is_opt(a, outfile_names, &val)) {
            rc = parse_string(&p, opt_value(&p, val), &opt->output_dir);
        } else if (is_opt(a, host_names, &val)) {
            if (opt->n_hosts == OSHRUN_X_MAX)
                rc = fail(&p, "more than %d --host options", OSHRUN_X_MAX);
            else
                rc = parse_string(&p, opt_value(&p, val), &opt->hosts[opt->n_hosts++]);
        } else if (is_opt(a, hostfile_names, &val)) {
            rc = parse_string(&p, opt_value(&p, val), &opt->hostfile);
        } else if (is_opt(a, mca_names, &val) && !val) {
            /* Open MPI component settings: nothing here reads them, but a job
             * handed to mpirun gets them. */
            if (p.i + 2 >= argc)
                rc = fail(&p, "%s wants a name and a value", a);
            else if (opt->n_mca == OSHRUN_MCA_MAX)
                rc = fail(&p, "more than %d --mca options", OSHRUN_MCA_MAX);
            else {
                opt->mca[opt->n_mca][0] = argv[++p.i];
                opt->mca[opt->n_mca++][1] = argv[++p.i];
            }
        } else if (is_opt(a, overs_names, &val) && !val) {
            opt->oversubscribe = true;
        } else if (is_opt(a, root_names, &val) && !val) {
            opt->allow_root = true;
        } else if (is_opt(a, report_names, &val) && !val) {
            opt->report_bindings = true;
        } else if (is_opt(a, dry_names, &val) && !val) {
            opt->dry_run = true;
        } else if (is_opt(a, help_names, &val) && !val) {
            return OPT_HELP;
        } else if (is_opt(a, version_names, &val) && !val) {
            return OPT_VERSION;
        } else {
            rc = fail(&p, "unknown option '%s'", a);
        }
        if (rc)
            return OPT_USAGE;
    }
    if (p.i >= argc)
        return fail(&p, "no program to run was given"), OPT_USAGE;
    opt->np_given = opt->np > 0;
    if (opt->np == 0)
        opt->np = opt->npernode; /* -N alone: that many PEs on this node */
    if (opt->np == 0)
        return fail(&p, "give the number of PEs with -n N"), OPT_USAGE;
    if (opt->stdin_rank >= opt->np)
        return fail(&p, "--stdin %d names a PE outside 0..%d", opt->stdin_rank, opt->np - 1),
               OPT_USAGE;
    opt->argv = argv + p.i;
    return OPT_RUN;
}
