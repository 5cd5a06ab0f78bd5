/* Every variable in the environment table (src/env/env_table.h) that has a
 * syntax (sizes, integers) must turn a malformed value into a nonzero exit and a
 * message naming the variable, the value and what is expected: run alone, and
 * for the user's variables also under oshrun. BOOL and STR variables accept any
 * text, so they have no bad values; another launcher's variables are only read
 * to recognise it and never fail.
 *   bad_env OSHRUN PROGRAM */
#define _GNU_SOURCE
#include "env.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *const bad_sizes[] = { "lots",      "12x", "-1",
                                         "1.5.5",     "M",   "99999999999999999999",
                                         "16777216T", "" };
static const char *const bad_ints[] = {
    "fast", "1.5", "12x", "-", "99999999999999999999", ""
};

static int failures;

/* Runs argv with name=value added to the environment; returns its exit status
 * (or 128+signal) and its stderr in err. */
static int run(char *const *argv, const char *name, const char *value, char *err,
               size_t errlen)
{
    setenv(name, value, 1);
    int fds[2];
    if (pipe(fds)) {
        perror("pipe");
        exit(1);
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 0, 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    unsetenv(name);
    close(fds[1]);
    if (rc) {
        fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(rc));
        exit(1);
    }
    size_t len = 0;
    ssize_t n;
    while ((n = read(fds[0], err + len, errlen - 1 - len)) > 0 &&
           len + (size_t)n < errlen - 1)
        len += (size_t)n;
    if (n > 0)
        len += (size_t)n;
    err[len] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void expect_rejected(char *const *argv, const char *how, const char *name,
                            const char *value)
{
    char err[8192], want[256];
    int st = run(argv, name, value, err, sizeof err);
    snprintf(want, sizeof want, "%s=\"%s\" is not valid: expected ", name, value);
    if (st == 0 || st >= 128 || !strstr(err, want)) {
        fprintf(stderr,
                "FAIL %s with %s=\"%s\": exit status %d, stderr:\n%s\n(wanted a nonzero exit "
                "and \"%s\")\n",
                how, name, value, st, err, want);
        failures++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bad_env OSHRUN PROGRAM\n");
        return 2;
    }
    /* Launcher variables from an enclosing job must not leak into the runs. */
    for (size_t i = 0; i < shoal_env_nvars; i++)
        if (shoal_env_vars[i].cls == SHOAL_ENV_CLASS_LAUNCHER)
            unsetenv(shoal_env_vars[i].name);
    char *alone[] = { argv[2], NULL };
    char *launched[] = { argv[1], "-n", "2", "--timeout", "30", argv[2], NULL };
    int checked = 0;
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        const struct shoal_env_var *v = &shoal_env_vars[i];
        const char *const *bad;
        size_t nbad;
        if (v->cls == SHOAL_ENV_CLASS_FOREIGN || v->kind == SHOAL_ENV_BOOL ||
            v->kind == SHOAL_ENV_STR)
            continue;
        if (v->kind == SHOAL_ENV_SIZE) {
            bad = bad_sizes;
            nbad = sizeof bad_sizes / sizeof bad_sizes[0];
        } else {
            bad = bad_ints;
            nbad = sizeof bad_ints / sizeof bad_ints[0];
        }
        for (size_t b = 0; b < nbad; b++) {
            expect_rejected(alone, "alone", v->name, bad[b]);
            if (v->alias)
                expect_rejected(alone, "alone", v->alias, bad[b]);
            if (v->cls == SHOAL_ENV_CLASS_USER)
                expect_rejected(launched, "under oshrun", v->name, bad[b]);
        }
        checked++;
    }
    if (failures)
        return 1;
    printf("bad_env: %d variables reject every malformed value with a message and a nonzero "
           "exit\n",
           checked);
    return 0;
}
