/* A one-PE launcher that speaks PMI-1, PMI-2 or the oshrun channel badly, to check
 * that a PE refuses what it is sent (or not sent) with a message and status 1 and
 * never waits for ever.
 *   pmi.fake_launcher SCENARIO PROGRAM ARGS...
 * Runs PROGRAM as PE 0 of 1 with PMI_FD (or SHOAL_BOOT_FD) set to its end of a
 * socket pair and answers it as SCENARIO says:
 *   good          PMI-1 done right (the job must succeed: the server itself works)
 *   silent        PMI: reads the greeting, never answers
 *   long_line     PMI-1: a 3000-byte answer to the greeting
 *   long_value    PMI-1: a get answered with a 600-character value
 *   bad_version   PMI-1: pmi_version=2x in the answer to the greeting
 *   bad_header    PMI-2: the answer to fullinit has the length header "44abcd"
 *   bad_size      PMI-2: fullinit answered with size=1x
 *   regular_file  PMI_FD names a regular file, which must stay empty
 *   oshrun_silent the oshrun channel: reads the hello, never answers
 * Exits with PROGRAM's status (128 + the signal that killed it); 99 when the
 * scenario itself fails, 124 when PROGRAM outlives 20 s. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *scenario;
static pid_t child;
static int fd = -1;
static char buf[65536];
static size_t have;

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "fake_launcher: the PE did not end within 20 s\n";
    ssize_t w = write(2, m, sizeof m - 1);
    (void)w;
    kill(child, SIGKILL);
    _exit(124);
}

static void send_str(const char *s, size_t n)
{
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return; /* the PE has gone: its status tells */
        s += w;
        n -= (size_t)w;
    }
}

static void send1(const char *line)
{
    send_str(line, strlen(line));
}

/* A PMI-2 message with a correct length header. */
static void send2(const char *msg)
{
    char head[7];
    snprintf(head, sizeof head, "%-6zu", strlen(msg));
    send_str(head, 6);
    send1(msg);
}

/* Reads more of what the PE sends; 0 when it has closed its end. */
static int more(void)
{
    if (have == sizeof buf)
        return 0;
    ssize_t n = read(fd, buf + have, sizeof buf - have);
    if (n <= 0)
        return 0;
    have += (size_t)n;
    return 1;
}

/* The next PMI-1 line into out, without its newline; 0 at the end. */
static int next_line(char *out, size_t len)
{
    for (;;) {
        char *nl = memchr(buf, '\n', have);
        if (nl) {
            size_t k = (size_t)(nl - buf);
            snprintf(out, len, "%.*s", (int)k, buf);
            memmove(buf, nl + 1, have - k - 1);
            have -= k + 1;
            return 1;
        }
        if (!more())
            return 0;
    }
}

/* The next PMI-2 message; 0 at the end. */
static int next_msg2(char *out, size_t len)
{
    while (have < 6)
        if (!more())
            return 0;
    size_t k = (size_t)atoi(buf);
    while (have < 6 + k)
        if (!more())
            return 0;
    snprintf(out, len, "%.*s", (int)k, buf + 6);
    memmove(buf, buf + 6 + k, have - 6 - k);
    have -= 6 + k;
    return 1;
}

/* Key-value store of the good PMI-1 server: one job of one PE. */
static char keys[256][64], values[256][1100];
static int nkeys;

static void arg(const char *line, const char *key, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    out[0] = 0;
    if (p)
        snprintf(out, len, "%.*s", (int)strcspn(p + strlen(pat), " "), p + strlen(pat));
}

static void serve_pmi1(void)
{
    char line[4096], reply[4096], k[64], v[1100];
    while (next_line(line, sizeof line)) {
        if (!strncmp(line, "cmd=init ", 9)) {
            if (!strcmp(scenario, "long_line")) {
                char big[3001];
                memset(big, 'x', sizeof big - 1);
                big[sizeof big - 1] = 0;
                snprintf(reply, sizeof reply, "cmd=response_to_init rc=0 x=%s\n", big);
                send1(reply);
            } else if (!strcmp(scenario, "bad_version")) {
                send1("cmd=response_to_init pmi_version=2x pmi_subversion=0 rc=0\n");
            } else {
                send1("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
            }
        } else if (!strcmp(line, "cmd=get_maxes")) {
            send1("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0\n");
        } else if (!strcmp(line, "cmd=get_my_kvsname")) {
            send1("cmd=my_kvsname kvsname=fake rc=0\n");
        } else if (!strncmp(line, "cmd=put ", 8)) {
            arg(line, "key", k, sizeof k);
            arg(line, "value", v, sizeof v);
            if (nkeys < 256) {
                snprintf(keys[nkeys], sizeof keys[0], "%s", k);
                snprintf(values[nkeys++], sizeof values[0], "%s", v);
            }
            send1("cmd=put_result rc=0\n");
        } else if (!strcmp(line, "cmd=barrier_in")) {
            send1("cmd=barrier_out\n");
        } else if (!strncmp(line, "cmd=get ", 8)) {
            arg(line, "key", k, sizeof k);
            const char *found = NULL;
            for (int i = 0; i < nkeys; i++)
                if (!strcmp(keys[i], k))
                    found = values[i];
            if (!strcmp(scenario, "long_value")) {
                char big[601];
                memset(big, 'a', sizeof big - 1);
                big[sizeof big - 1] = 0;
                snprintf(reply, sizeof reply, "cmd=get_result rc=0 value=%s\n", big);
            } else if (found) {
                snprintf(reply, sizeof reply, "cmd=get_result rc=0 value=%.1099s\n", found);
            } else {
                snprintf(reply, sizeof reply, "cmd=get_result rc=-1 msg=absent\n");
            }
            send1(reply);
        } else if (!strcmp(line, "cmd=finalize")) {
            send1("cmd=finalize_ack\n");
        }
    }
}

static void serve_pmi2(void)
{
    char line[4096];
    if (!next_line(line, sizeof line))
        return;
    send1("cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
    if (!next_msg2(line, sizeof line) || strncmp(line, "cmd=fullinit;", 13))
        return;
    if (!strcmp(scenario, "bad_header")) {
        const char *m = "cmd=fullinit-response;rc=0;rank=0;size=1;xx";
        send_str("44abcd", 6);
        send1(m);
    } else {
        send2("cmd=fullinit-response;rc=0;rank=0;size=1x;");
    }
    while (next_msg2(line, sizeof line))
        ;
}

/* Reads whatever comes and answers nothing. */
static void serve_silent(void)
{
    while (more())
        have = 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SCENARIO PROGRAM ARGS...\n", argv[0]);
        return 99;
    }
    scenario = argv[1];
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        perror("socketpair");
        return 99;
    }
    char file[] = "/tmp/shoal-fake-pmi-XXXXXX";
    int pe_fd = sv[1];
    if (!strcmp(scenario, "regular_file")) {
        pe_fd = mkstemp(file);
        if (pe_fd < 0) {
            perror("mkstemp");
            return 99;
        }
        unlink(file);
    }
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", pe_fd);
    signal(SIGALRM, on_alarm);
    alarm(20);
    child = fork();
    if (child < 0) {
        perror("fork");
        return 99;
    }
    if (child == 0) {
        close(sv[0]);
        if (!strcmp(scenario, "oshrun_silent")) {
            setenv("SHOAL_BOOT_FD", fdtext, 1);
            setenv("SHOAL_RANK", "0", 1);
            setenv("SHOAL_SIZE", "1", 1);
        } else {
            setenv("PMI_FD", fdtext, 1);
            setenv("PMI_RANK", "0", 1);
            setenv("PMI_SIZE", "1", 1);
        }
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    close(sv[1]);
    fd = sv[0];
    if (!strcmp(scenario, "silent") || !strcmp(scenario, "oshrun_silent"))
        serve_silent();
    else if (!strcmp(scenario, "bad_header") || !strcmp(scenario, "bad_size"))
        serve_pmi2();
    else if (strcmp(scenario, "regular_file"))
        serve_pmi1();
    int st;
    while (waitpid(child, &st, 0) < 0 && errno == EINTR)
        ;
    if (!strcmp(scenario, "regular_file")) {
        struct stat s;
        if (fstat(pe_fd, &s) || s.st_size != 0) {
            fprintf(stderr,
                    "fake_launcher: the PE wrote %lld bytes into the file in PMI_FD\n",
                    (long long)s.st_size);
            return 99;
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
