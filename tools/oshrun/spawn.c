/* Starting the PEs. The program is looked up along PATH once, up front, and the
 * first PE reports a failed exec back through a close-on-exec pipe, so a typo
 * gives one message and status 127 instead of N crashes. */
#include "oshrun.h"
#include "env.h"
#include "cpulist.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Descriptors oshrun holds per PE: channel, stdout, stderr; plus its own few. */
#define FDS_PER_PE 3
#define FDS_SPARE 16

/* 0 if path is a file this process may execute, else why not (an errno). */
static int check_file(const char *path)
{
    struct stat st;
    if (stat(path, &st))
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK))
        return EACCES;
    return 0;
}

static _Noreturn void cannot_run(const char *name, const char *path, int err)
{
    if (err == EISDIR)
        fprintf(stderr, "oshrun: cannot run '%s': %s is a directory, not a program\n", name,
                path);
    else if (err == EACCES)
        fprintf(stderr,
                "oshrun: cannot run '%s': %s is not executable; check the name, or make "
                "it executable with chmod +x\n",
                name, path);
    else if (err == ENOENT && strchr(name, '/'))
        fprintf(stderr, "oshrun: cannot run '%s': no such file; check the path\n", name);
    else if (err == ENOENT)
        fprintf(stderr,
                "oshrun: cannot run '%s': not found in PATH; give its path, e.g. ./%s\n",
                name, name);
    else
        fprintf(stderr, "oshrun: cannot run '%s': %s\n", name, strerror(err));
    exit(127);
}

/* The file execvp would run for name; exits 127 with a message if there is none. */
static char *resolve_program(const char *name)
{
    if (strchr(name, '/')) {
        int err = check_file(name);
        char *copy = strdup(name);
        if (err || !copy)
            cannot_run(name, name, err ? err : ENOMEM);
        return copy;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    int first_err = ENOENT;
    char *first_bad = NULL;
    for (const char *p = path;; p++) {
        const char *colon = strchrnul(p, ':');
        char *cand;
        /* An empty PATH entry means the current directory, as for execvp. */
        if (asprintf(&cand, "%.*s%s%s", (int)(colon - p), p, colon == p ? "" : "/", name) < 0)
            cannot_run(name, name, ENOMEM);
        int err = check_file(cand);
        if (!err) {
            free(first_bad);
            return cand;
        }
        if (err != ENOENT && !first_bad) {
            first_err = err;
            first_bad = cand;
        } else {
            free(cand);
        }
        if (!*colon)
            break;
        p = colon;
    }
    cannot_run(name, first_bad ? first_bad : name, first_err);
}

/* Each PE has ~FDS_PER_PE descriptors open in oshrun; raise the soft limit if
 * that needs it (the PEs get the old limit back). */
static void check_fd_limit(struct job *j)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return;
    j->child_nofile = rl;
    rlim_t need = (rlim_t)j->size * FDS_PER_PE + FDS_SPARE;
    if (rl.rlim_cur >= need)
        return;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        fprintf(stderr,
                "oshrun: -n %d needs about %llu open files but the limit is %llu; raise it "
                "with ulimit -n, or start fewer PEs\n",
                j->size, (unsigned long long)need, (unsigned long long)rl.rlim_max);
        exit(1);
    }
    rl.rlim_cur = need;
    setrlimit(RLIMIT_NOFILE, &rl);
}

/* The environment every PE gets: oshrun's own with the -x settings, and its
 * SHOAL_* launcher variables replaced. Two slots are filled in per PE. */
static char **child_env;
static char env_fd[32], env_rank[32], env_size[32], env_binding[64];

/* Does entry ("NAME=value") set the variable named by spec ("NAME" or "NAME=...")? */
static bool same_var(const char *entry, const char *spec)
{
    size_t n = strcspn(spec, "=");
    return !strncmp(entry, spec, n) && entry[n] == '=';
}

static void build_env(const struct job *j)
{
    static const char *const launcher_vars[] = { "SHOAL_BOOT_FD=", "SHOAL_RANK=",
                                                 "SHOAL_SIZE=", "SHOAL_BINDING=" };
    size_t n = 0;
    while (environ[n])
        n++;
    child_env = calloc(n + (size_t)j->opt.n_env + 5, sizeof *child_env);
    if (!child_env) {
        perror("oshrun: out of memory");
        exit(1);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool drop = false;
        for (size_t v = 0; v < sizeof launcher_vars / sizeof launcher_vars[0]; v++)
            drop |= same_var(environ[i], launcher_vars[v]);
        /* -x VAR=value replaces VAR; -x VAR alone keeps oshrun's own value. */
        for (int x = 0; x < j->opt.n_env; x++)
            drop |= strchr(j->opt.env[x], '=') && same_var(environ[i], j->opt.env[x]);
        if (!drop)
            child_env[k++] = environ[i];
    }
    for (int x = 0; x < j->opt.n_env; x++) {
        bool later = false; /* the last -x of a variable wins */
        for (int y = x + 1; y < j->opt.n_env; y++)
            later |= strcspn(j->opt.env[y], "=") == strcspn(j->opt.env[x], "=") &&
                    !strncmp(j->opt.env[y], j->opt.env[x], strcspn(j->opt.env[x], "=")) &&
                    strchr(j->opt.env[y], '=');
        if (strchr(j->opt.env[x], '=') && !later)
            child_env[k++] = (char *)j->opt.env[x];
    }
    child_env[k++] = env_fd;
    child_env[k++] = env_rank;
    child_env[k++] = env_size;
    child_env[k++] = env_binding;
    snprintf(env_size, sizeof env_size, "SHOAL_SIZE=%d", j->size);
    memcpy(env_binding, "SHOAL_BINDING=", 14);
    binding_env(j, env_binding + 14, sizeof env_binding - 14);
}

/* Runs in the new process; exec failures are reported on report_fd when it is set. */
static _Noreturn void exec_pe(const struct job *j, int rank, const char *path, int chan,
                              int in, int out, int err, int report_fd, pid_t parent)
{
    if (j->bind.how != BIND_NONE) {
        cpu_set_t set;
        bind_cpus(&j->bind, rank, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    /* Give the program the signal state and limits oshrun started with. */
    sigprocmask(SIG_SETMASK, &j->child_mask, NULL);
    if (!j->child_ignores_sigpipe)
        signal(SIGPIPE, SIG_DFL);
    setrlimit(RLIMIT_NOFILE, &j->child_nofile);
    setpgid(0, j->pgid);
    /* If oshrun is killed outright, its PEs must not live on as orphans. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    fcntl(chan, F_SETFD, 0);
    execve(path, j->opt.argv, child_env);
    int e = errno;
    if (report_fd >= 0 && write(report_fd, &e, sizeof e) == (ssize_t)sizeof e)
        _exit(127);
    dprintf(2, "oshrun: cannot execute %s: %s\n", path, strerror(e));
    _exit(127);
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Reads what the first PE's exec reported: returns only if it succeeded. */
static void check_exec(struct job *j, pid_t pid, int report_fd, const char *path)
{
    int e;
    ssize_t n;
    while ((n = read(report_fd, &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(report_fd);
    if (n != (ssize_t)sizeof e)
        return;
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    cannot_run(j->opt.argv[0], path, e);
}

/* Starts PE pe->rank; returns 0 or an errno, with *what naming the call that failed. */
static int start_pe(struct job *j, struct pe *pe, const char *path, int devnull,
                    const char **what)
{
    int sv[2], outp[2], errp[2], inp[2] = { -1, -1 }, rep[2] = { -1, -1 };
    int first = pe->rank == 0;
    int want_stdin = pe->rank == j->opt.stdin_rank || j->opt.stdin_rank == STDIN_ALL;

    *what = "socketpair";
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return errno;
    *what = "pipe";
    if (pipe2(outp, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) ||
        (want_stdin && pipe2(inp, O_CLOEXEC)) || (first && pipe2(rep, O_CLOEXEC)))
        return errno; /* oshrun is about to end the job: no point closing these */

    snprintf(env_fd, sizeof env_fd, "SHOAL_BOOT_FD=%d", sv[1]);
    snprintf(env_rank, sizeof env_rank, "SHOAL_RANK=%d", pe->rank);
    pid_t parent = getpid();
    *what = "fork";
    /* Coarse, as tmpfs stamps files: no region the PE makes can look older. */
    clock_gettime(CLOCK_REALTIME_COARSE, &pe->started);
    pid_t pid = fork();
    if (pid < 0)
        return errno;
    if (pid == 0)
        exec_pe(j, pe->rank, path, sv[1], want_stdin ? inp[0] : devnull, outp[1], errp[1],
                rep[1], parent);

    /* Also here, so the group exists before the next PE joins it, whoever runs first. */
    setpgid(pid, j->pgid ? j->pgid : pid);
    if (first)
        j->pgid = pid;
    pe->pid = pid;
    pe->exited = false;
    j->running++;
    close(sv[1]);
    close(outp[1]);
    close(errp[1]);
    pe->chan = sv[0];
    pe->out.fd = outp[0];
    pe->err.fd = errp[0];
    set_nonblock(pe->chan);
    set_nonblock(pe->out.fd);
    set_nonblock(pe->err.fd);
    if (want_stdin) {
        close(inp[0]);
        pe->stdin_fd = inp[1];
        j->stdin_readers++;
        set_nonblock(inp[1]);
    }
    if (first) {
        close(rep[1]);
        check_exec(j, pid, rep[0], path);
    }
    return 0;
}

/* mkdir -p path; 0 or -1 with errno set. */
static int make_dirs(char *path)
{
    for (char *p = path + 1;; p++) {
        char c = *p;
        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0777) && errno != EEXIST ? -1 : 0;
        *p = c;
        if (rc || !c)
            return rc;
    }
}

static _Noreturn void output_fail(const char *path, const char *why)
{
    fprintf(stderr, "oshrun: --output-filename: cannot use %s: %s\n", path, why);
    exit(1);
}

/* Checks that fd, opened from path, is this user's own (or root's, when
 * root_too): in a shared directory another user may have made the name first,
 * to have the job write where they choose. */
static void check_own(int fd, const char *path, bool dir, bool root_too)
{
    struct stat st;
    char why[160];
    if (fstat(fd, &st))
        output_fail(path, strerror(errno));
    if (st.st_uid != geteuid() && !(root_too && st.st_uid == 0)) {
        snprintf(why, sizeof why,
                 "it belongs to another user (uid %u); remove it, or choose a directory "
                 "of your own",
                 (unsigned)st.st_uid);
        output_fail(path, why);
    }
    if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode) || st.st_nlink != 1)
        output_fail(path,
                    dir ? "not a directory" : "not a plain file with one name; remove it");
}

/* Opens (making it when absent) the directory name inside at, never through a
 * symbolic link, and checks it is this user's. */
static int own_dir(int at, const char *name, const char *path)
{
    if (mkdirat(at, name, 0777) && errno != EEXIST)
        output_fail(path, strerror(errno));
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        output_fail(path,
                    errno == ELOOP || errno == ENOTDIR
                            ? "it is a symbolic link or not a directory; remove it"
                            : strerror(errno));
    check_own(fd, path, true, false);
    return fd;
}

/* --output-filename DIR: as Open MPI lays it out, DIR/1/rank.N/stdout and
 * stderr, N padded to the digits of the PE count; output still shows here too.
 * DIR may sit in a shared place such as /tmp: DIR (or the link naming it) and
 * everything oshrun opens below it must be this user's, and nothing below it is
 * followed through a symbolic link, so another user's files are never written. */
static void open_output_files(struct job *j)
{
    if (!j->opt.output_dir)
        return;
    char path[PATH_MAX];
    const char *dir = j->opt.output_dir;
    if ((size_t)snprintf(path, sizeof path, "%s", dir) >= sizeof path - 32)
        output_fail(dir, "name too long");
    if (make_dirs(path))
        output_fail(dir, strerror(errno));
    struct stat link;
    if (lstat(dir, &link))
        output_fail(dir, strerror(errno));
    if (S_ISLNK(link.st_mode) && link.st_uid != geteuid() && link.st_uid != 0)
        output_fail(dir,
                    "it is another user's symbolic link; remove it, or choose a "
                    "directory of your own");
    int top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        output_fail(dir, strerror(errno));
    check_own(top, dir, true, true);
    snprintf(path, sizeof path, "%s/1", dir);
    int one = own_dir(top, "1", path);
    close(top);
    int width = snprintf(NULL, 0, "%d", j->size);
    for (int r = 0; r < j->size; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank.%0*d", width, r);
        snprintf(path, sizeof path, "%s/1/%s", dir, name);
        int rank = own_dir(one, name, path);
        struct stream *streams[] = { &j->pes[r].out, &j->pes[r].err };
        for (int k = 0; k < 2; k++) {
            const char *file = k ? "stderr" : "stdout";
            snprintf(path, sizeof path, "%s/1/%s/%s", dir, name, file);
            /* No O_TRUNC until the file is known to be ours; O_NONBLOCK: a FIFO
             * made there must not hold oshrun up before check_own refuses it. */
            int fd = openat(rank, file,
                            O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
            if (fd < 0)
                output_fail(path,
                            errno == ELOOP ? "it is a symbolic link; remove it"
                                           : strerror(errno));
            check_own(fd, path, false, false);
            if (ftruncate(fd, 0))
                output_fail(path, strerror(errno));
            streams[k]->file = fd;
        }
        close(rank);
    }
    close(one);
}

void binding_env(const struct job *j, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", bind_name(j->bind.how),
             j->bind.spread                                       ? ":spread"
                     : j->bind.how != BIND_NONE && j->bind.shared ? ":shared"
                                                                  : "");
}

void spawn_pes(struct job *j)
{
    open_output_files(j);
    if (j->opt.wdir && chdir(j->opt.wdir)) {
        fprintf(stderr, "oshrun: -wdir %s: %s\n", j->opt.wdir, strerror(errno));
        exit(1);
    }
    char *path = resolve_program(j->opt.argv[0]);
    check_fd_limit(j);
    place_job(j);
    build_env(j);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        perror("oshrun: /dev/null");
        exit(1);
    }
    for (int r = 0; r < j->size; r++) {
        const char *what;
        int err = start_pe(j, &j->pes[r], path, devnull, &what);
        if (!err)
            continue;
        if (r == 0) {
            fprintf(stderr, "oshrun: cannot start PE 0: %s: %s\n", what, strerror(err));
            exit(1);
        }
        job_end(j, 1, SIGTERM,
                "cannot start PE %d: %s: %s; start fewer PEs, or raise the "
                "limits on processes (ulimit -u) and open files (ulimit -n)",
                r, what, strerror(err));
        break;
    }
    close(devnull);
    free(path);
}
