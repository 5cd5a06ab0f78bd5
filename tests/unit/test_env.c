/* Unit test of the environment parser (src/env/env.c). */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "env.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(e)                                                                             \
    do {                                                                                     \
        if (!(e)) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #e);            \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static void size_ok(const char *s, size_t want)
{
    size_t v = 12345;
    int rc = shoal_parse_size(s, &v);
    if (rc != 0 || v != want) {
        fprintf(stderr, "shoal_parse_size(\"%s\"): rc %d, value %zu; want %zu\n", s, rc, v,
                want);
        exit(1);
    }
}

static void size_bad(const char *s)
{
    size_t v = 12345;
    int rc = shoal_parse_size(s, &v);
    if (rc != -1 || v != 12345) {
        fprintf(stderr, "shoal_parse_size(\"%s\"): rc %d, value %zu; want rejection\n", s, rc,
                v);
        exit(1);
    }
}

static void test_parse_size(void)
{
    size_ok("0", 0);
    size_ok("4096", 4096);
    size_ok("1k", 1024);
    size_ok("1K", 1024);
    size_ok("512M", (size_t)512 << 20);
    size_ok("2G", (size_t)2 << 30);
    size_ok("1T", (size_t)1 << 40);
    size_ok("1t", (size_t)1 << 40);
    size_ok(".5m", 524288);
    size_ok("0.5M", 524288);
    size_ok("1.5G", (size_t)3 << 29);
    size_ok("0.25K", 256);
    size_ok("3.1M", 3250586); /* 3250585.6, rounded up */
    size_ok("0.1k", 103);     /* 102.4, rounded up */
    size_ok("0.001k", 2);
    size_ok("20kk", 20480);             /* only the first suffix letter counts */
    size_ok("20.5m", (size_t)41 << 19); /* Cray OpenSHMEMX's example */
    size_ok("0.3k", 308);               /* 307.2, rounded up to a byte */
    size_ok("1.", 1);
    if (SIZE_MAX == UINT64_MAX)
        size_ok("16777215T", (size_t)16777215 << 40);

    size_bad("");
    size_bad("abc");
    size_bad("-1");
    size_bad("12x");
    size_bad("M");
    size_bad(".");
    size_bad(".k");
    size_bad("99999999999999999999T");
    size_bad("99999999999999999999");
    size_bad("16777216T"); /* 2^64 */
    size_bad(NULL);
}

static void test_parse_bool(void)
{
    static const char *const off[] = { "0", "no", "NO", "false", "False", "off", "OFF", "" };
    static const char *const on[] = { "1", "yes", "true", "on", "ON", "2", "enabled" };
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        CHECK(shoal_parse_bool(off[i]) == 0);
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        CHECK(shoal_parse_bool(on[i]) == 1);
    CHECK(shoal_parse_bool(NULL) == 0);
}

static void test_parse_int(void)
{
    long v = 99;
    CHECK(shoal_parse_int("0", &v) == 0 && v == 0);
    CHECK(shoal_parse_int("42", &v) == 0 && v == 42);
    CHECK(shoal_parse_int("-7", &v) == 0 && v == -7);
    CHECK(shoal_parse_int("+5", &v) == 0 && v == 5);
    v = 99;
    CHECK(shoal_parse_int("", &v) == -1);
    CHECK(shoal_parse_int("abc", &v) == -1);
    CHECK(shoal_parse_int("12x", &v) == -1);
    CHECK(shoal_parse_int("1.5", &v) == -1);
    CHECK(shoal_parse_int("-", &v) == -1);
    CHECK(shoal_parse_int("99999999999999999999999", &v) == -1);
    CHECK(shoal_parse_int(NULL, &v) == -1);
    CHECK(v == 99);
}

/* Removes every variable the table knows, so the caller's environment cannot leak in. */
static void clear_env(void)
{
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        unsetenv(shoal_env_vars[i].name);
        if (shoal_env_vars[i].alias)
            unsetenv(shoal_env_vars[i].alias);
    }
}

static int load(struct shoal_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0xa5, sizeof *cfg);
    err[0] = '\0';
    return shoal_env_load(cfg, err, errlen);
}

static void test_env_load(void)
{
    struct shoal_config cfg;
    char err[256];

    clear_env();
    CHECK(load(&cfg, err, sizeof err) == 0);
    CHECK(cfg.symmetric_size == (size_t)512 << 20);
    CHECK(cfg.debug == 0 && cfg.info == 0 && cfg.version == 0);
    CHECK(cfg.spin_count == -1 && cfg.yield_sleep_us == 50);
    CHECK(cfg.boot_fd == -1 && cfg.rank == -1 && cfg.size == 0);

    CHECK(setenv("SHMEM_SYMMETRIC_SIZE", "1G", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == 0);
    CHECK(cfg.symmetric_size == (size_t)1 << 30);

    /* The deprecated alias counts only when the SHMEM_ name is unset. */
    CHECK(setenv("SMA_SYMMETRIC_SIZE", "2M", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == 0);
    CHECK(cfg.symmetric_size == (size_t)1 << 30);
    CHECK(unsetenv("SHMEM_SYMMETRIC_SIZE") == 0);
    CHECK(load(&cfg, err, sizeof err) == 0);
    CHECK(cfg.symmetric_size == (size_t)2 << 20);

    /* A malformed value fails and the message names the variable that held it. */
    CHECK(setenv("SMA_SYMMETRIC_SIZE", "lots", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == -1);
    CHECK(strstr(err, "SMA_SYMMETRIC_SIZE") && strstr(err, "lots"));
    CHECK(setenv("SHMEM_SYMMETRIC_SIZE", "12x", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == -1);
    CHECK(strstr(err, "SHMEM_SYMMETRIC_SIZE") && strstr(err, "12x"));
    CHECK(setenv("SMA_SYMMETRIC_SIZE", "2M", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == -1); /* SHMEM_ wins, even when malformed */
    CHECK(strstr(err, "SHMEM_SYMMETRIC_SIZE"));
    char tiny[8];
    CHECK(load(&cfg, tiny, sizeof tiny) == -1);
    CHECK(strlen(tiny) == sizeof tiny - 1);
    clear_env();

    CHECK(setenv("SHOAL_SPIN_COUNT", "fast", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == -1);
    CHECK(strstr(err, "SHOAL_SPIN_COUNT"));
    CHECK(setenv("SHOAL_SPIN_COUNT", "-1", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == 0 && cfg.spin_count == -1);
    clear_env();

    /* A value outside what the table accepts is refused, naming what it accepts. */
    static const struct {
        const char *name, *value, *says;
    } refused[] = {
        { "SHOAL_SPIN_COUNT", "-3", "at least -1" },
        { "SHMEM_OFI_STALL_TIMEOUT", "-5", "from 0 to" },
        { "SHMEM_OFI_MR_CACHE", "-3", "from 0 to" },
        { "SHOAL_YIELD_SLEEP_US", "-1", "from 0 to" },
        { "SHMEM_OFI_PROGRESS_THREAD", "sometimes", "one of auto, on, off" },
        { "SHMEM_OFI_QUIET", "often", "one of auto, counters" },
        { "SHOAL_TRANSPORT", "tcp", "one of ofi, mpi, mpi-all" },
        { "SHOAL_DEVICE", "gpu", "one of emu, cuda, rocm, none" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK(setenv(refused[i].name, refused[i].value, 1) == 0);
        CHECK(load(&cfg, err, sizeof err) == -1);
        if (!strstr(err, refused[i].name) || !strstr(err, refused[i].value) ||
            !strstr(err, refused[i].says)) {
            fprintf(stderr, "%s=%s: message \"%s\" lacks \"%s\"\n", refused[i].name,
                    refused[i].value, err, refused[i].says);
            exit(1);
        }
        CHECK(shoal_env_check(refused[i].name, err, sizeof err) == -1);
        CHECK(strstr(err, refused[i].name));
        clear_env();
    }
    CHECK(setenv("SHMEM_OFI_STALL_TIMEOUT", "0", 1) == 0);
    CHECK(setenv("SHMEM_OFI_PROGRESS_THREAD", "off", 1) == 0);
    CHECK(setenv("SHOAL_TRANSPORT", "", 1) == 0); /* empty: the default */
    CHECK(load(&cfg, err, sizeof err) == 0 && cfg.ofi_stall_timeout == 0);
    CHECK(!strcmp(cfg.ofi_progress_thread, "off") && !strcmp(cfg.transport, "ofi"));
    CHECK(shoal_env_check("SHMEM_OFI_STALL_TIMEOUT", err, sizeof err) == 0);
    clear_env();

    CHECK(setenv("SMA_DEBUG", "yes", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == 0 && cfg.debug == 1);
    CHECK(setenv("SHMEM_DEBUG", "off", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == 0 && cfg.debug == 0);
    clear_env();

    /* Another launcher's variables that only hint at it never make loading fail. */
    CHECK(setenv("SLURM_NTASKS", "not-a-number", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == 0 && cfg.foreign_slurm_ntasks == 0);
    clear_env();
    /* Those Shoal joins the job with are refused, naming the value as set. */
    CHECK(setenv("PMIX_RANK", "not-a-number", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == -1);
    CHECK(strstr(err, "PMIX_RANK=\"not-a-number\" is not valid") == err);
    CHECK(setenv("PMIX_RANK", "3", 1) == 0);
    CHECK(load(&cfg, err, sizeof err) == 0 && cfg.foreign_pmix_rank == 3);
    clear_env();
    static const char *const bad[][2] = {
        { "PMI_SIZE", "4294967297" },
        { "PMI_SIZE", "0" },
        { "PMI_RANK", "4294967296" },
        { "PMI_RANK", "-1" },
        { "PMI_RANK", "1x" },
        { "PMI_FD", "abc" },
        { "PMI_FD", "" },
        { "PMIX_RANK", "-3" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "%s=\"%s\" is not valid", bad[i][0], bad[i][1]);
        CHECK(setenv(bad[i][0], bad[i][1], 1) == 0);
        CHECK(load(&cfg, err, sizeof err) == -1 && !strncmp(err, want, strlen(want)));
        clear_env();
    }
    /* The default stands for "not set" though no set value may be it. */
    CHECK(load(&cfg, err, sizeof err) == 0 && cfg.foreign_pmi_fd == -1 &&
          cfg.foreign_pmi_rank == -1 && cfg.foreign_pmi_size == 0);
}

/* Cray OpenSHMEMX's variables: other spellings, values carried onto Shoal's, the NIC
 * checks and the list syntax. */
static void test_cx(void)
{
    struct shoal_config cfg;
    char err[256];
    clear_env();
    setenv("SHMEM_ENV_DISPLAY", "1", 1);
    setenv("SHMEM_OFI_USE_PROV_NAME", "cxi", 1);
    setenv("SHMEM_OFI_DOMAIN", "mlx5_0", 1);
    setenv("SHMEM_OFI_USE_DOMAIN_NAME", "cxi0", 1); /* Shoal's name wins */
    CHECK(load(&cfg, err, sizeof err) == 0);
    CHECK(cfg.info == 1 && cfg.version == 0);
    CHECK(!strcmp(cfg.ofi_provider, "cxi"));
    CHECK(!strcmp(cfg.ofi_domain, "mlx5_0"));
    CHECK(shoal_env_is_set("SHMEM_INFO") && !shoal_env_is_set("SHMEM_VERSION"));
    clear_env(); /* the spellings are rows of the table too */

    setenv("SHMEM_OFI_PROGRESS", "MANUAL", 1);
    setenv("SHMEM_COLL_OPT_OFF", "broadcast", 1);
    setenv("SHMEM_SMP_SIZE_LIMIT", "0", 1);
    setenv("SHOAL_COLL_NODE_AWARE", "1", 1); /* set: stays */
    CHECK(load(&cfg, err, sizeof err) == 0 && shoal_env_cx_apply(&cfg, err, sizeof err) == 0);
    CHECK(!strcmp(cfg.ofi_progress_thread, "on"));
    CHECK(cfg.coll_bcast_ring_min == SIZE_MAX && cfg.coll_node_aware == 1);
    CHECK(cfg.coll_reduce_rsag_min == 0);
    CHECK(!strcmp(cfg.node_map, "pe"));
    clear_env();

    static const struct {
        const char *name, *value, *message;
    } bad[] = {
        { "SHMEM_OFI_NUM_NICS", "65", "from 1 to 64" },
        { "SHMEM_OFI_NUM_NICS", "2:0-2", "as many distinct" },
        { "SHMEM_OFI_NUM_NICS", "0", "from 1 to 64" },
        { "SHMEM_OFI_NUM_NICS", "2:1,1", "as many distinct" },
        { "SHMEM_OFI_NUM_NICS", "two", "expected a count" },
        { "SHMEM_OFI_NIC_POLICY", "USER", "needs SHMEM_OFI_NIC_MAPPING" },
        { "SHMEM_OFI_NIC_MAPPING", "0:0", "only with SHMEM_OFI_NIC_POLICY=USER" },
        { "SHMEM_SMP_SIZE_LIMIT", "4G", "optional K or M suffix" },
        { "SHMEM_COLL_OPT_OFF", "scan", "\"scan\" is not a collective" },
        { "SHMEM_LOCALITY_ONNODE", "0", "leave no path" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(bad[i].name, bad[i].value, 1);
        if (!strcmp(bad[i].name, "SHMEM_LOCALITY_ONNODE"))
            setenv("SHMEM_LOCALITY_OFFNODE", "0", 1);
        CHECK(load(&cfg, err, sizeof err) == 0);
        if (shoal_env_cx_apply(&cfg, err, sizeof err) != -1 || !strstr(err, bad[i].message)) {
            fprintf(stderr, "%s=%s: got \"%s\", want a message with \"%s\"\n", bad[i].name,
                    bad[i].value, err, bad[i].message);
            exit(1);
        }
        clear_env();
    }
    setenv("SHMEM_OFI_NUM_NICS", "2", 1);
    setenv("SHMEM_OFI_NIC_POLICY", "user", 1);
    setenv("SHMEM_OFI_NIC_MAPPING", "0:0; 2:1", 1);
    CHECK(load(&cfg, err, sizeof err) == 0 &&
          shoal_env_cx_apply(&cfg, err, sizeof err) == -1);
    CHECK(strstr(err, "names NIC 2, but SHMEM_OFI_NUM_NICS allows 2") != NULL);
    clear_env();
    setenv("SHMEM_OFI_NUM_NICS", "2:1,3", 1);
    setenv("SHMEM_OFI_NIC_POLICY", "USER", 1);
    setenv("SHMEM_OFI_NIC_MAPPING", "0:0-1,3; 1:2; ", 1);
    CHECK(load(&cfg, err, sizeof err) == 0 && shoal_env_cx_apply(&cfg, err, sizeof err) == 0);
    CHECK(shoal_env_cx_check_local(&cfg, 4, err, sizeof err) == 0);
    CHECK(shoal_env_cx_check_local(&cfg, 5, err, sizeof err) == -1);
    CHECK(strstr(err, "local PE 4 of this node's 5") != NULL);
    clear_env();

    CHECK(shoal_pe_list_has("0,4-7", 5) == 1);
    CHECK(shoal_pe_list_has("0,4-7", 3) == 0);
    CHECK(shoal_pe_list_has("0,,1", 0) == -1);
    CHECK(shoal_pe_list_has("3-1", 2) == -1);
    long long lim;
    CHECK(shoal_parse_smp_limit("64k", &lim) == 0 && lim == 65536);
    CHECK(shoal_parse_smp_limit("-5", &lim) == 0 && lim == -1);
    CHECK(shoal_parse_smp_limit("1x", &lim) == -1);
}

int main(void)
{
    test_parse_size();
    test_parse_bool();
    test_parse_int();
    test_env_load();
    test_cx();
    printf("test_env: all passed\n");
    return 0;
}
