/* Jobs that span machines. oshrun starts PEs on this machine only; a command
 * line that names other hosts (--host, --hostfile) or more PEs than -N allows
 * on one node goes to a PMIx launcher found in PATH (Shoal bootstraps from
 * PMIx), with the same options, and oshrun says so. Without one it stops with
 * the remedy instead of quietly running everything here. */
#include "oshrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool is_local(const char *host, size_t len)
{
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    size_t short_len = strcspn(me, ".");
    static const char *const loopback[] = { "localhost", "127.0.0.1", "::1",
                                            "localhost.localdomain" };
    for (size_t i = 0; i < sizeof loopback / sizeof loopback[0]; i++)
        if (strlen(loopback[i]) == len && !strncmp(host, loopback[i], len))
            return true;
    return (len == strlen(me) && !strncmp(host, me, len)) ||
            (len == short_len && !strncmp(host, me, len));
}

/* The first host in a comma-separated --host list ("a,b:2") that is not this
 * machine, as "name"; NULL when all are this one. */
static const char *remote_in_list(const char *list, char *buf, size_t len)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        size_t name = strcspn(p, ":,");
        if (name && !is_local(p, name)) {
            snprintf(buf, len, "%.*s", (int)name, p);
            return buf;
        }
        p += n + (p[n] == ',');
    }
    return NULL;
}

/* The same for a hostfile: one host per line ("node1 slots=4"), # comments. */
static const char *remote_in_file(const char *file, char *buf, size_t len)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "oshrun: --hostfile %s: %s\n", file, strerror(errno));
        exit(2);
    }
    char line[1024];
    const char *found = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        size_t n = strcspn(p, " \t\n#:");
        if (n && !is_local(p, n)) {
            snprintf(buf, len, "%.*s", (int)n, p);
            found = buf;
        }
    }
    fclose(f);
    return found;
}

/* A PMIx launcher in PATH: prterun, or an mpirun that is Open MPI's or PRRTE's. */
static char *find_pmix_launcher(void)
{
    static const char *const names[] = { "prterun", "mpirun" };
    const char *path = getenv("PATH");
    for (size_t i = 0; path && i < sizeof names / sizeof names[0]; i++)
        for (const char *p = path; *p;) {
            size_t n = strcspn(p, ":");
            char *cand;
            if (n && asprintf(&cand, "%.*s/%s", (int)n, p, names[i]) >= 0) {
                if (!access(cand, X_OK)) {
                    char *cmd, out[4096] = "";
                    if (asprintf(&cmd, "'%s' --version 2>&1", cand) >= 0) {
                        FILE *f = strchr(cand, '\'') ? NULL : popen(cmd, "r");
                        size_t got = f ? fread(out, 1, sizeof out - 1, f) : 0;
                        out[got] = '\0';
                        if (f)
                            pclose(f);
                        free(cmd);
                    }
                    if (strstr(out, "Open MPI") || strstr(out, "PRRTE") ||
                        strstr(out, "prterun"))
                        return cand;
                }
                free(cand);
            }
            p += n + (p[n] == ':');
        }
    return NULL;
}

/* Prints words as one shell line (quoting what needs it). */
static void print_command(char **words)
{
    for (size_t i = 0; words[i]; i++) {
        const char *w = words[i];
        bool plain = *w &&
                strspn(w,
                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                       "0123456789_-./,:=+%@") == strlen(w);
        fprintf(stderr, i ? " " : "");
        if (plain) {
            fputs(w, stderr);
            continue;
        }
        fputc('\'', stderr);
        for (; *w; w++)
            fputs(*w == '\'' ? "'\\''" : (char[]){ *w, 0 }, stderr);
        fputc('\'', stderr);
    }
    fputc('\n', stderr);
}

void maybe_hand_off(const struct options *opt)
{
    char host[256], why[512];
    const char *remote = NULL;
    if (opt->dry_run) /* plans this node (main.c), starts nothing anywhere */
        return;
    for (int i = 0; !remote && i < opt->n_hosts; i++)
        remote = remote_in_list(opt->hosts[i], host, sizeof host);
    if (remote)
        snprintf(why, sizeof why, "--host names %s, another machine", remote);
    else if (opt->hostfile && (remote = remote_in_file(opt->hostfile, host, sizeof host)))
        snprintf(why, sizeof why, "--hostfile %s names %s, another machine", opt->hostfile,
                 remote);
    else if (opt->npernode && opt->np > opt->npernode)
        snprintf(why, sizeof why, "-n %d with -N %d needs %d nodes", opt->np, opt->npernode,
                 (opt->np + opt->npernode - 1) / opt->npernode);
    else
        return;

    char *launcher = find_pmix_launcher();
    if (!launcher) {
        fprintf(stderr,
                "oshrun: %s, but oshrun starts PEs on this machine only and finds no PMIx "
                "launcher (prterun, or Open MPI's mpirun) in PATH; run the job with mpirun "
                "or "
                "srun --mpi=pmix (Shoal joins their jobs through PMIx)\n",
                why);
        exit(2);
    }
    size_t n = 0, cap = 64 + 2 * OSHRUN_X_MAX + 3 * OSHRUN_MCA_MAX;
    for (char *const *a = opt->argv; *a; a++)
        cap++;
    char **words = calloc(cap, sizeof *words);
    char np[16], npn[16], timeout[32], in[16];
    if (!words) {
        perror("oshrun: out of memory");
        exit(1);
    }
#define ADD(w) (words[n++] = (char *)(w))
    ADD(launcher);
    if (opt->np_given) {
        snprintf(np, sizeof np, "%d", opt->np);
        ADD("-n"), ADD(np);
    }
    if (opt->npernode) {
        snprintf(npn, sizeof npn, "%d", opt->npernode);
        ADD("-N"), ADD(npn);
    }
    for (int i = 0; i < opt->n_hosts; i++)
        ADD("--host"), ADD(opt->hosts[i]);
    if (opt->hostfile)
        ADD("--hostfile"), ADD(opt->hostfile);
    for (int i = 0; i < opt->n_env; i++)
        ADD("-x"), ADD(opt->env[i]);
    for (int i = 0; i < opt->n_mca; i++)
        ADD("--mca"), ADD(opt->mca[i][0]), ADD(opt->mca[i][1]);
    if (opt->map_arg)
        ADD("--map-by"), ADD(opt->map_arg);
    if (opt->bind_arg)
        ADD("--bind-to"), ADD(opt->bind_arg);
    if (opt->wdir)
        ADD("-wdir"), ADD(opt->wdir);
    if (opt->output_dir)
        ADD("--output-filename"), ADD(opt->output_dir);
    if (opt->tag_output)
        ADD("--tag-output");
    if (opt->timeout > 0) {
        snprintf(timeout, sizeof timeout, "%.0f", opt->timeout < 1 ? 1 : opt->timeout);
        ADD("--timeout"), ADD(timeout);
    }
    if (opt->stdin_rank != 0) {
        snprintf(in, sizeof in, "%d", opt->stdin_rank);
        ADD("--stdin"),
                ADD(opt->stdin_rank == STDIN_ALL            ? "all"
                            : opt->stdin_rank == STDIN_NONE ? "none"
                                                            : in);
    }
    if (opt->oversubscribe)
        ADD("--oversubscribe");
    if (opt->allow_root)
        ADD("--allow-run-as-root");
    if (opt->report_bindings)
        ADD("--report-bindings");
    for (char *const *a = opt->argv; *a; a++)
        ADD(*a);
#undef ADD
    fprintf(stderr,
            "oshrun: %s; oshrun starts PEs on this machine only, so it hands the job to "
            "the PMIx launcher %s:\noshrun: ",
            why, launcher);
    print_command(words);
    fflush(stderr);
    execv(launcher, words);
    fprintf(stderr, "oshrun: cannot run %s: %s\n", launcher, strerror(errno));
    free(words);
    free(launcher);
    exit(127);
}
