/* oshrun: starts N PEs of a program on this machine, serves their bootstrap
 * requests over one socket each (src/bootstrap/wire.h), forwards their output
 * line by line, and ends the whole job as soon as one PE fails. */
#ifndef OSHRUN_H
#define OSHRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct options {
    int np;
    bool tag_output;
    double timeout;        /* seconds; 0 = none */
    int stdin_rank;        /* PE that gets oshrun's stdin; -1 = none */
    char *const *argv;     /* program and its arguments */
};

/* A reply shared by every PE that receives it (an allgather result goes to all). */
struct blob {
    size_t refs;
    size_t len;
    unsigned char data[];
};

/* One of a PE's output pipes, cut into whole lines before it is passed on. */
struct stream {
    int fd;                /* read end; -1 once closed */
    int dest;              /* oshrun's stdout or stderr */
    char *buf;
    size_t len;
};

enum pe_op { OP_NONE, OP_BARRIER, OP_ALLGATHER };

struct pe {
    int rank;
    pid_t pid;             /* 0 if it was never started */
    bool exited;           /* reaped */
    int chan;              /* oshrun's end of the channel; -1 once closed */
    unsigned char *in;     /* bytes of a request not yet complete */
    size_t in_len, in_cap;
    struct blob *reply;    /* reply being sent, with reply_off bytes already gone */
    size_t reply_off;
    bool hello;            /* called shmem_init */
    bool finalized;        /* called shmem_finalize */
    enum pe_op op;         /* collective this PE waits in */
    struct stream out, err;
};

struct job {
    struct options opt;
    struct pe *pes;
    int size;
    int running;           /* started and not yet reaped */
    pid_t pgid;            /* process group holding every PE */
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

    /* oshrun's stdin, on its way to PE opt.stdin_rank. */
    int stdin_pipe;        /* write end; -1 once closed */
    char *stdin_buf;
    size_t stdin_len, stdin_off;

    bool ending;           /* a verdict is in; PEs are being killed */
    int status;            /* oshrun's exit status */
    double kill_at;        /* when still-running PEs get SIGKILL; 0 = not armed */
    double timeout_at;     /* 0 = no timeout */
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

/* loop.c */
double now_s(void);
void setup_signals(struct job *j);
void await_exit(struct job *j, struct pe *pe);
void run_job(struct job *j);

/* job.c */
void job_end(struct job *j, int status, int sig, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void kill_pes(struct job *j, int sig);
void pe_reaped(struct job *j, struct pe *pe, int wstatus);
void report_timeout(struct job *j);
void check_stuck(struct job *j);

/* service.c */
void chan_read(struct job *j, struct pe *pe);
void chan_write(struct job *j, struct pe *pe);
void chan_close(struct pe *pe);

/* forward.c */
void stream_read(struct job *j, struct pe *pe, struct stream *s, bool drain);
void stream_flush_close(struct job *j, struct pe *pe, struct stream *s);
void stdin_read(struct job *j);
void stdin_write(struct job *j);
void stdin_close(struct job *j);

#endif
