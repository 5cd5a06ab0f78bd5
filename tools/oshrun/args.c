/* Command line of oshrun, parsed without side effects (no output, no exit) so
 * that the fuzz target fuzz/fuzz_oshrun_args.c can drive it. Options end at the
 * first argument that is not one (the program), so the program's own options
 * are never taken for oshrun's. */
#include "oshrun.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    int argc;
    char *const *argv;
    int i;                 /* argument being parsed */
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
        return fail(p, "%s wants a number of PEs from 1 to %d, not '%s'", opt, OSHRUN_NP_MAX, s);
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
        *rank = -1;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v >= OSHRUN_NP_MAX)
        return fail(p, "--stdin wants 'none' or a PE number, not '%s'", s);
    *rank = (int)v;
    return 0;
}

enum opt_result parse_options(int argc, char *const *argv, struct options *opt, char *err,
                              size_t errlen)
{
    static const char *const np_names[] = { "-n", "-np", "--np", NULL };
    static const char *const tag_names[] = { "-l", "--tag-output", "--prefix", NULL };
    static const char *const timeout_names[] = { "--timeout", NULL };
    static const char *const stdin_names[] = { "--stdin", NULL };
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
            rc = parse_np(&p, "-n", a + 2, &opt->np);      /* -n4, as mpirun users type it */
        } else if (is_opt(a, tag_names, &val) && !val) {
            opt->tag_output = true;
        } else if (is_opt(a, timeout_names, &val)) {
            rc = parse_timeout(&p, opt_value(&p, val), &opt->timeout);
        } else if (is_opt(a, stdin_names, &val)) {
            rc = parse_stdin(&p, opt_value(&p, val), &opt->stdin_rank);
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
    if (opt->np == 0)
        return fail(&p, "give the number of PEs with -n N"), OPT_USAGE;
    if (opt->stdin_rank >= opt->np)
        return fail(&p, "--stdin %d names a PE outside 0..%d", opt->stdin_rank, opt->np - 1),
               OPT_USAGE;
    opt->argv = argv + p.i;
    return OPT_RUN;
}
