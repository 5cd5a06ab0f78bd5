/* shoal-info: how this Shoal was built, where it is installed and every
 * environment variable it reads, so a user can check a setup and a bug report
 * can quote it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_info.h"
#include "env.h"
#include "shoal_info_config.h"

static const char *const transports[] = { SHOAL_INFO_TRANSPORTS };
static const char *const bootstraps[] = { SHOAL_INFO_BOOTSTRAPS };

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void heading(const char *title)
{
    printf("\n%s\n", title);
}

static void field(const char *name, const char *value)
{
    printf("  %-16s %s\n", name, value && *value ? value : "none");
}

static void path_field(const char *name, const char *dir, const char *rest)
{
    printf("  %-16s %s/%s\n", name, dir, rest);
}

static void list(const char *title, const char *const *items, size_t n)
{
    heading(title);
    for (size_t i = 0; i < n; i++)
        printf("  %s\n", items[i]);
}

/* The prefix is worked out from where this program lives rather than taken
 * from the configure-time value: installs may be redirected (--prefix, DESTDIR)
 * or moved afterwards, and the wrappers and pkg-config file follow the same rule. */
static void print_install(void)
{
    heading("Installation");
    char bindir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", bindir, sizeof bindir - 1);
    if (n < 0) {
        field("Prefix", "unknown (cannot read /proc/self/exe)");
        return;
    }
    bindir[n] = '\0';
    *strrchr(bindir, '/') = '\0'; /* the link is an absolute path */

    char build[PATH_MAX];
    if (realpath(SHOAL_INFO_BUILD_DIR, build) && strcmp(build, bindir) == 0) {
        field("Prefix", "not installed (this copy runs from the build tree)");
        field("Installs to", SHOAL_INFO_CONFIGURED_PREFIX);
        return;
    }

    char up[PATH_MAX + sizeof SHOAL_INFO_BIN_TO_PREFIX + 1];
    char prefix[PATH_MAX];
    snprintf(up, sizeof up, "%s/%s", bindir, SHOAL_INFO_BIN_TO_PREFIX);
    if (!realpath(up, prefix)) {
        field("Prefix", "unknown (the directory above this program is gone)");
        return;
    }
    field("Prefix", prefix);
    field("Programs", bindir);
    path_field("Headers", prefix, SHOAL_INFO_INCLUDEDIR);
    path_field("Libraries", prefix, SHOAL_INFO_LIBDIR);
    path_field("pkg-config", prefix, SHOAL_INFO_LIBDIR "/pkgconfig/shoal.pc");
    path_field("CMake package", prefix, SHOAL_INFO_LIBDIR "/cmake/Shoal");
}

static void print_env(void)
{
    shoal_env_print(stdout, NULL, 1);
}

static void print_all(void)
{
    printf("Shoal %s, an implementation of OpenSHMEM %s\n", SHOAL_VERSION_STRING,
           SHOAL_INFO_SPEC_VERSION);

    heading("Version");
    field("Shoal", SHOAL_VERSION_STRING);
    field("OpenSHMEM spec", SHOAL_INFO_SPEC_VERSION);

    heading("Build");
    field("Build type", SHOAL_BUILD_TYPE);
    field("Compiler", SHOAL_BUILD_COMPILER);
    field("Sanitizer", SHOAL_BUILD_SANITIZE);

    list("Transports", transports, NELEMS(transports));
    list("Bootstrap", bootstraps, NELEMS(bootstraps));
    print_install();

    heading("Environment variables (name, default, meaning)");
    print_env();
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: shoal-info [--env | --version | --help]\n"
            "Print how this Shoal was built, where it is installed and the environment\n"
            "variables it reads.\n"
            "  --env      only the environment variables, with defaults and meanings\n"
            "  --version  only the Shoal and OpenSHMEM versions\n"
            "  --help     this text\n");
}

int main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "shoal-info: takes at most one option; see shoal-info --help\n");
        return 2;
    }
    if (argc == 1) {
        print_all();
    } else if (!strcmp(argv[1], "--env")) {
        print_env();
    } else if (!strcmp(argv[1], "--version")) {
        printf("Shoal %s\nOpenSHMEM %s\n", SHOAL_VERSION_STRING, SHOAL_INFO_SPEC_VERSION);
    } else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
    } else {
        fprintf(stderr, "shoal-info: unknown option '%s'; see shoal-info --help\n", argv[1]);
        return 2;
    }
    /* A report that could not be written (full disk, closed pipe) is a failure. */
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
