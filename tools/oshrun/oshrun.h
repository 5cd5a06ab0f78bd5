/* oshrun: starts N PEs of a program on this machine, serves their bootstrap
 * requests over one socket each (src/bootstrap/wire.h), forwards their output
 * line by line, and ends the whole job as soon as one PE fails. */
#ifndef OSHRUN_H
#define OSHRUN_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

enum bind_to {
    BIND_AUTO,
    BIND_NONE,
    BIND_CORE,
    BIND_HWTHREAD,
    BIND_SOCKET,
    BIND_NUMA,
    BIND_L3CACHE,
    BIND_PACKAGE
};
enum map_by { MAP_CORE, MAP_SOCKET, MAP_HWTHREAD, MAP_NUMA, MAP_L3CACHE, MAP_GPU };

/* Most -x and --mca options one command line may carry. */
#define OSHRUN_X_MAX 128
#define OSHRUN_MCA_MAX 64
#define STDIN_NONE (-1)
#define STDIN_ALL (-2)

struct options {
    int np;
    bool np_given; /* -n was given (else np comes from -N) */
    int npernode;  /* -N; 0 = not given */
    bool tag_output;
    double timeout;  /* seconds; 0 = none */
    int stdin_rank;  /* PE that gets oshrun's stdin, STDIN_NONE or STDIN_ALL */
    bool bind_given; /* --bind-to was on the command line */
    enum bind_to bind;
    enum map_by map;
    const char *map_arg, *bind_arg; /* as typed, for a launcher the job is handed to */
    const char *wdir;
    const char *output_dir;          /* --output-filename */
    const char *hosts[OSHRUN_X_MAX]; /* --host, -H: each a comma-separated list */
    int n_hosts;
    const char *hostfile;
    const char *env[OSHRUN_X_MAX]; /* -x: VAR or VAR=value */
    int n_env;
    const char *mca[OSHRUN_MCA_MAX][2];
    int n_mca;
    bool oversubscribe, allow_root; /* accepted; passed on when the job is handed off */
    bool report_bindings;           /* print each PE's CPUs before starting it */
    bool dry_run;                   /* --dry-run: print the placement, start nothing */
    char *const *argv;              /* program and its arguments */
};

/* bind.c: where each PE runs. */
struct cpu;
struct bind_plan {
    cpu_set_t allowed; /* what oshrun may use: its mask and the cgroup's cpuset */
    enum bind_to how;  /* what applies; BIND_NONE: the kernel places the PEs */
    bool shared;       /* some PEs share their CPUs with others */
    bool others;       /* other oshrun jobs hold some of the CPUs */
    bool foreign;      /* automatic: some PEs share CPUs other oshrun jobs hold */
    bool spread;       /* automatic: PEs outnumber CPUs; each may leave its core (:spread) */
    int ncpu, ncore, nsocket;
    int ncore_use, ncpu_use; /* entries of core_order / thread_order PEs are placed on */
    const struct cpu *cpus;
    const int *core_first, *core_order, *thread_order;
    int *locks;          /* per entry of cpus: the held lock file, or -1 (-2: unusable) */
    const char *lockdir; /* where the lock files are, for messages */
    cpu_set_t *pe_sets;  /* placement by topology (place.c): each PE's CPUs */
    int *pe_gpu;         /* with --map-by gpu: each PE's GPU (index in the topology) */
};
int bind_parse(const char *s, enum bind_to *out);
const char *bind_name(enum bind_to b);
void bind_plan(const char *root, const char *lockdir, const cpu_set_t *allowed, int np,
               enum bind_to want, enum map_by map, struct bind_plan *plan);
void bind_cpus(const struct bind_plan *plan, int r, cpu_set_t *set);
void bind_plan_free(struct bind_plan *plan);

/* place.c: placement by the node's topology. Plans the job's placement into j->bind and reports it (--report-bindings); with
 * --dry-run, exits after the report. */
struct job;
void place_job(struct job *j);

/* A reply shared by every PE that receives it (an allgather result goes to all). */
struct blob {
    size_t refs;
    size_t len;
    unsigned char data[];
};

/* One of a PE's output pipes, cut into whole lines before it is passed on. */
struct stream {
    int fd;   /* read end; -1 once closed */
    int dest; /* oshrun's stdout or stderr */
    int file; /* --output-filename copy; -1 if none */
    char *buf;
    size_t len;
    double held_since; /* when buf started holding a partial line; 0 = it holds none */
};

enum pe_op { OP_NONE, OP_BARRIER, OP_ALLGATHER };

struct pe {
    int rank;
    pid_t pid;               /* 0 if it was never started */
    struct timespec started; /* just before its fork (CLOCK_REALTIME_COARSE) */
    bool exited;             /* reaped */
    int chan;                /* oshrun's end of the channel; -1 once closed */
    unsigned char *in;       /* bytes of a request not yet complete */
    size_t in_len, in_cap;
    struct blob *reply; /* reply being sent, with reply_off bytes already gone */
    size_t reply_off;
    bool hello;         /* called shmem_init */
    bool unconnected;   /* named as never connected, decided with the verdict */
    bool finalized;     /* called shmem_finalize */
    uint64_t last_sync; /* its last world synchronisation (LAST_SYNC) + 1; 0: none yet */
    enum pe_op op;      /* collective this PE waits in */
    struct stream out, err;
    int stdin_fd;      /* write end of its stdin pipe; -1 if none or closed */
    size_t stdin_off;  /* bytes of the current stdin chunk it has taken */
    double stopped_at; /* when a signal stopped it (now_s); 0: not stopped */
    int stop_sig;
    bool stop_told; /* this stop was reported */
};

struct job {
    struct options opt;
    struct pe *pes;
    int size;
    bool gpu_pes; /* the PEs use GPUs the topology knows: PE r GPU r mod GPUs */
    int running;  /* started and not yet reaped */
    pid_t pgid;   /* process group holding every PE */
    int sigfd;

    /* What the PEs get back of what oshrun changed for itself. */
    sigset_t child_mask;
    bool child_ignores_sigpipe;
    struct rlimit child_nofile;

    /* The collective in progress: which one, its per-PE size, who has arrived. */
    enum pe_op coll_op;
    uint64_t coll_len;
    int coll_first;
    int coll_arrived;
    struct blob *coll_result;

    struct bind_plan bind;

    /* oshrun's stdin, on its way to PE opt.stdin_rank (or every PE): one chunk
     * at a time, read again once every PE's pipe has taken it. */
    int stdin_readers; /* PEs whose stdin pipe is still open */
    char *stdin_buf;
    size_t stdin_len;
    int never_connected; /* PEs that exited 0 without calling shmem_init */
    /* By destination fd (1, 2): the stream whose text there ends mid-line, if any.
     * When stdout and stderr are one file (a terminal, 2>&1), slot 1 serves both. */
    const struct stream *open_line[3];
    bool one_dest; /* stdout and stderr are one file */

    bool ending;   /* a verdict is in; PEs are being killed */
    char *verdict; /* the verdict, printed by job_verdict once the PEs are gone */
    const char *verdict_fmt;
    int status;        /* oshrun's exit status */
    double kill_at;    /* when still-running PEs get SIGKILL; 0 = not armed */
    double timeout_at; /* 0 = no timeout */
};

/* More PEs than this cannot be what was meant (each costs processes and descriptors). */
#define OSHRUN_NP_MAX (1 << 20)

/* args.c: fills opt from the command line. On OPT_USAGE err holds why (one line,
 * no "oshrun:" prefix). Prints nothing and never exits. */
enum opt_result { OPT_RUN, OPT_HELP, OPT_VERSION, OPT_USAGE };
enum opt_result parse_options(int argc, char *const *argv, struct options *opt, char *err,
                              size_t errlen);

/* usage.c */
void print_help(void);
void print_version(void);
void print_usage_error(const char *why);

/* spawn.c: exits 127 when the program cannot be run. */
void spawn_pes(struct job *j);

/* handoff.c: a job for other hosts goes to mpirun/prterun (never returns then). */
void maybe_hand_off(const struct options *opt);
/* How the PEs were placed, in the words SHOAL_BINDING carries to them. */
void binding_env(const struct job *j, char *buf, size_t len);

/* loop.c */
double now_s(void);
void setup_signals(struct job *j);
void await_exit(struct job *j, struct pe *pe);
void run_job(struct job *j);

/* job.c: job_end for a PE's failure or oshrun's own; job_stop when the job is
 * ended from outside (--timeout, a signal to oshrun), where PEs still running
 * that never connected are named as well as those that ended without connecting. */
void job_end(struct job *j, int status, int sig, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
void job_stop(struct job *j, int status, int sig, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Prints the verdict (after everything the PEs printed), if the job has one. */
void job_verdict(struct job *j);
void kill_pes(struct job *j, int sig);
/* Each PE names the Shoal routine it is in (SIGUSR1 or SIGQUIT to oshrun, --timeout). */
void ask_reports(struct job *j);
void pe_reaped(struct job *j, struct pe *pe, int wstatus);
void report_timeout(struct job *j);
void check_stuck(struct job *j);

/* service.c */
void chan_read(struct job *j, struct pe *pe);
void chan_write(struct job *j, struct pe *pe);
void chan_close(struct pe *pe);

/* shm_regions.c: removes the libfabric shm regions an exited PE left in /dev/shm. */
void remove_pe_regions(const struct pe *pe);

/* forward.c */
/* Notes whether oshrun's stdout and stderr are one file (open lines are then shared). */
void streams_init(struct job *j);
void stream_read(struct job *j, struct pe *pe, struct stream *s, bool drain);
void stream_flush_close(struct job *j, struct pe *pe, struct stream *s);
/* Passes on partial lines held longer than the grace; returns the next deadline (0 = none). */
double streams_flush_held(struct job *j, double now);
/* Passes on all the PEs have written so far, unfinished lines too, and ends any
 * open line: a message of oshrun's own then follows the PEs' output on a line of its own. */
void streams_settle(struct job *j);
void stdin_read(struct job *j);
void stdin_write(struct job *j, struct pe *pe);
void stdin_close(struct job *j, struct pe *pe);
void stdin_close_all(struct job *j);

#endif
