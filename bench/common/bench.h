/* Helpers shared by the benchmark programs: timing, size sweeps, result lines.
 * Only plain OpenSHMEM 1.4 is used here so every program also builds with other
 * implementations' oshcc (e.g. Open MPI's OSHMEM). */
#ifndef SHOAL_BENCH_H
#define SHOAL_BENCH_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

/* Spec version as one number (1.4 -> 104, 1.5 -> 105): 1.5 features are guarded by it. */
#define BENCH_SPEC_VERSION (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION)
#define BENCH_HAVE_SPEC_1_5 (BENCH_SPEC_VERSION >= 105)

/* Options every program understands; each program reads its own extras. */
struct bench_opts {
    size_t min_size; /* -s: smallest message in bytes */
    size_t max_size; /* -m: largest message in bytes */
    long iters;      /* -i: iterations for small messages (large ones scale down) */
    long warmup;     /* -w: untimed iterations before each measurement */
};

/* Parses -s/-m/-i/-w from argv; prints usage and exits on anything else. */
void bench_parse(int argc, char **argv, struct bench_opts *o, const char *usage);

/* Parses a byte count with an optional K/M/G suffix; exits on garbage. */
size_t bench_parse_size(const char *s);

/* Wall-clock seconds from a monotonic clock. */
double bench_now(void);

/* Iterations for a message of `size` bytes: `iters` for small ones, fewer for large
 * ones so that each size moves a similar amount of data. */
long bench_iters_for(const struct bench_opts *o, size_t size);

/* "shoal", "oshmem" or the vendor string: the impl column of every result line. */
const char *bench_impl(void);

/* Starts a program with no options of its own: shmem_init, then bench_parse (usage:
 * what its -h adds, or NULL). With fewer than min_pes PEs or more than max_pes (0: no
 * limit) PE 0 says what program `name` needs and the program ends (shmem_finalize,
 * exit status 1). Returns this PE. */
int bench_init(int argc, char **argv, struct bench_opts *o, const char *usage,
               const char *name, int min_pes, int max_pes);

/* The most PEs bench_slowest gathers from. */
#define BENCH_MAX_PES 4096

/* Collective: each PE gives its own figure; returns the largest (on PE 0; 0 elsewhere). */
double bench_slowest(double mine);
/* The same, and the PEs' average in *avg on PE 0 (as OSU reports its figures). */
double bench_slowest_avg(double mine, double *avg);

/* Times collective number `which` of a program on count elements (call runs it): a
 * barrier before each call, which also makes pSync reuse safe on the 1.4 path, and
 * warmup untimed calls first. Returns the slowest PE's average microseconds per call
 * over iters calls (on PE 0; 0 elsewhere). */
double bench_time_coll(void (*call)(int which, size_t count), int which, size_t count,
                       long iters, long warmup);

/* A new symmetric buffer of bytes, each set to fill; exits when the heap is short. */
void *bench_malloc_filled(size_t bytes, int fill);

/* Where a program's remote buffers live, by BENCH_TARGET: "heap" (shmem_malloc, the
 * default) or "global" (the program's static data, symmetric too, which an
 * implementation may reach by another path). Returns global (global_bytes long) or a
 * new heap buffer of bytes; exits when the global one is too small. When BENCH_TARGET
 * is set, result lines carry it after the bench name (put_lat.global), so the two
 * targets are separate rows. */
void *bench_target(void *global, size_t global_bytes, size_t bytes);

/* Prints one machine-readable line: RESULT,<bench>[.<target>],<impl>,<npes>,<size>,<metric>,<value>. */
void bench_result(const char *bench, size_t size, const char *metric, double value);

/* The median of v[0..n-1] (sorted in place): the upper one of an even count. */
double bench_median(double *v, int n);

/* Prints the human-readable header the way the OSU OpenSHMEM benchmarks do. */
void bench_header(const char *title, const char *columns);

/* Splitmix64: a tiny deterministic generator, so any PE can replay another PE's stream. */
static inline uint64_t bench_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
