/* shoal-info: how this Shoal was built (transports, bootstraps, device backends
 * and the versions of the libraries behind them, as configured and as found at
 * run time), where it is installed and every environment variable it reads, so
 * a user can check a setup and a bug report can quote it. --parsable prints the
 * same as key:value lines, as oshmem_info --parsable does. */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_info.h"
#include "env.h"
#include "shoal_info_config.h"

#ifdef SHOAL_INFO_HAVE_OFI
#include <rdma/fabric.h>
#endif
#ifdef SHOAL_INFO_HAVE_PMIX
#include <pmix.h>
#endif

/* What CMake found: "name|what it is" entries (tools/shoal-info/CMakeLists.txt). */
static const char *const transports[] = { SHOAL_INFO_TRANSPORTS };
static const char *const bootstraps[] = { SHOAL_INFO_BOOTSTRAPS };
static const char *const devices[] = { SHOAL_INFO_DEVICES };

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static bool parsable, all;

/* One fact: "key:value" when parsable, else "  Name  value" under a heading. */
static void fact(const char *key, const char *label, const char *value)
{
    if (parsable && !strcmp(label, "none")) /* an empty list: "device:none" */
        printf("%s:none\n", key);
    else if (parsable)
        printf("%s:%s\n", key, value && *value ? value : "none");
    else
        printf("  %-18s %s\n", label, value && *value ? value : "none");
}

static void heading(const char *title)
{
    if (!parsable)
        printf("\n%s\n", title);
}

/* The version a component was built against and the one this machine runs. */
/* Unused when Shoal is built without both libfabric and PMIx. */
__attribute__((unused)) static void versions(const char *key, const char *built,
                                             const char *found)
{
    char k[128], label[64];
    snprintf(k, sizeof k, "%s:version:built", key);
    snprintf(label, sizeof label, "  built with");
    fact(k, label, built);
    snprintf(k, sizeof k, "%s:version:runtime", key);
    snprintf(label, sizeof label, "  found now");
    fact(k, label, found);
}

#ifdef SHOAL_INFO_HAVE_OFI
static void ofi_details(void)
{
    char built[32], found[32];
    uint32_t v = fi_version();
    snprintf(built, sizeof built, "libfabric %d.%d", FI_MAJOR_VERSION, FI_MINOR_VERSION);
    snprintf(found, sizeof found, "libfabric %u.%u", FI_MAJOR(v), FI_MINOR(v));
    versions("transport:ofi", built, found);
    if (!all)
        return;
    /* Which providers this machine's libfabric offers (the first that fits is used). */
    struct fi_info *list = NULL;
    char provs[1024] = "";
    if (!fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, NULL, &list)) {
        for (struct fi_info *i = list; i; i = i->next) {
            const char *p = i->fabric_attr->prov_name;
            size_t n = strlen(p);
            bool seen = false;
            for (const char *q = provs; (q = strstr(q, p)); q += n)
                seen |= (q == provs || q[-1] == ',') && (q[n] == ',' || q[n] == '\0');
            if (!seen && strlen(provs) + n + 2 < sizeof provs)
                snprintf(provs + strlen(provs), sizeof provs - strlen(provs), "%s%s",
                         *provs ? "," : "", p);
        }
        fi_freeinfo(list);
    }
    fact("transport:ofi:providers", "  providers", provs);
    /* Triggered put-with-signal runs on the NIC where a provider offers FI_TRIGGER
     * and orders writes with atomics (FI_ORDER_WAW); elsewhere in the library. */
    struct fi_info *hints = fi_allocinfo();
    char trig[1024] = "";
    if (hints) {
        hints->caps = FI_RMA | FI_ATOMIC | FI_TRIGGER;
        hints->ep_attr->type = FI_EP_RDM;
        hints->tx_attr->msg_order = FI_ORDER_WAW;
        list = NULL;
        if (!fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &list)) {
            for (struct fi_info *i = list; i; i = i->next) {
                const char *p = i->fabric_attr->prov_name;
                if (!strstr(trig, p) && strlen(trig) + strlen(p) + 2 < sizeof trig)
                    snprintf(trig + strlen(trig), sizeof trig - strlen(trig), "%s%s",
                             *trig ? "," : "", p);
            }
            fi_freeinfo(list);
        }
        fi_freeinfo(hints);
    }
    fact("transport:ofi:triggered_on_nic", "  triggered: NIC", trig);
    fact("transport:ofi:triggered_in_library", "  triggered: lib",
         "the other providers; same-node targets");
}
#endif

#ifdef SHOAL_INFO_HAVE_PMIX
static void pmix_details(void)
{
    char built[64];
    snprintf(built, sizeof built, "PMIx %ld.%ld.%ld", (long)PMIX_VERSION_MAJOR,
             (long)PMIX_VERSION_MINOR, (long)PMIX_VERSION_RELEASE);
    versions("bootstrap:pmix", built, PMIx_Get_version());
}
#endif

/* Whether a device backend's runtime library can be loaded on this machine now. */
static void device_details(const char *name)
{
    static const struct {
        const char *name, *lib;
    } libs[] = {
        { "cuda", "libcuda.so.1" },
        { "rocm", "libamdhip64.so" },
    };
    for (size_t i = 0; i < NELEMS(libs); i++) {
        if (strcmp(name, libs[i].name))
            continue;
        void *h = dlopen(libs[i].lib, RTLD_LAZY | RTLD_LOCAL);
        char key[96], value[128];
        snprintf(key, sizeof key, "device:%s:runtime", name);
        snprintf(value, sizeof value, "%s %s", libs[i].lib, h ? "found" : "not found");
        fact(key, "  found now", value);
        if (h)
            dlclose(h);
    }
}

/* Lists "name|what" entries under kind (transport, bootstrap, device). */
static void components(const char *kind, const char *title, const char *const *items,
                       size_t n)
{
    heading(title);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        const char *bar = strchr(items[i], '|');
        if (!bar)
            continue;
        char name[64], key[96];
        snprintf(name, sizeof name, "%.*s", (int)(bar - items[i]), items[i]);
        snprintf(key, sizeof key, "%s:%s", kind, name);
        fact(key, name, bar + 1);
        shown++;
        if (!strcmp(kind, "device"))
            device_details(name);
#ifdef SHOAL_INFO_HAVE_OFI
        if (!strcmp(key, "transport:ofi"))
            ofi_details();
#endif
#ifdef SHOAL_INFO_HAVE_PMIX
        if (!strcmp(key, "bootstrap:pmix"))
            pmix_details();
#endif
    }
    if (!shown)
        fact(kind, "none", "none built in");
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
        fact("path:prefix", "Prefix", "unknown (cannot read /proc/self/exe)");
        return;
    }
    bindir[n] = '\0';
    *strrchr(bindir, '/') = '\0'; /* the link is an absolute path */

    char build[PATH_MAX];
    if (realpath(SHOAL_INFO_BUILD_DIR, build) && strcmp(build, bindir) == 0) {
        fact("path:prefix", "Prefix", "not installed (this copy runs from the build tree)");
        fact("path:installs_to", "Installs to", SHOAL_INFO_CONFIGURED_PREFIX);
        return;
    }

    char up[PATH_MAX + sizeof SHOAL_INFO_BIN_TO_PREFIX + 1];
    char prefix[PATH_MAX], path[PATH_MAX + 64];
    snprintf(up, sizeof up, "%s/%s", bindir, SHOAL_INFO_BIN_TO_PREFIX);
    if (!realpath(up, prefix)) {
        fact("path:prefix", "Prefix", "unknown (the directory above this program is gone)");
        return;
    }
    fact("path:prefix", "Prefix", prefix);
    fact("path:bindir", "Programs", bindir);
    static const struct {
        const char *key, *label, *rest;
    } paths[] = {
        { "path:incdir", "Headers", SHOAL_INFO_INCLUDEDIR },
        { "path:libdir", "Libraries", SHOAL_INFO_LIBDIR },
        { "path:mandir", "Manual pages", SHOAL_INFO_MANDIR },
        { "path:pkgconfig", "pkg-config", SHOAL_INFO_LIBDIR "/pkgconfig/shoal.pc" },
        { "path:cmake", "CMake package", SHOAL_INFO_LIBDIR "/cmake/Shoal" },
    };
    for (size_t i = 0; i < NELEMS(paths); i++) {
        snprintf(path, sizeof path, "%s/%s", prefix, paths[i].rest);
        fact(paths[i].key, paths[i].label, path);
    }
}

static const char *class_name(enum shoal_env_class c)
{
    switch (c) {
    case SHOAL_ENV_CLASS_USER: return "user";
    case SHOAL_ENV_CLASS_LAUNCHER: return "launcher";
    case SHOAL_ENV_CLASS_FOREIGN: return "foreign";
    case SHOAL_ENV_CLASS_CX: return "cx";
    case SHOAL_ENV_CLASS_SPELLING: return "cx-spelling";
    case SHOAL_ENV_CLASS_NA: return "cx-not-applicable";
    }
    return "";
}

static void print_env(void)
{
    if (!parsable) {
        shoal_env_print(stdout, NULL, all);
        if (all) {
            printf("\n  Read by Shoal's other programs, not the library (a name ending in _ "
                   "stands for all it begins):\n");
            for (size_t i = 0; i < shoal_env_nothers; i++)
                printf("  %-24s %s\n", shoal_env_others[i].name, shoal_env_others[i].who);
        }
        return;
    }
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        const struct shoal_env_var *v = &shoal_env_vars[i];
        if (v->cls != SHOAL_ENV_CLASS_USER && v->cls != SHOAL_ENV_CLASS_CX && !all)
            continue;
        printf("env:%s:class:%s\n", v->name, class_name(v->cls));
        if (v->cls == SHOAL_ENV_CLASS_SPELLING)
            printf("env:%s:same_as:%s\n", v->name, v->same_as);
        else if (v->cls != SHOAL_ENV_CLASS_NA)
            printf("env:%s:default:%s\n", v->name, v->def);
        if (v->alias)
            printf("env:%s:alias:%s\n", v->name, v->alias);
        printf("env:%s:%s:%s\n", v->name,
               v->cls == SHOAL_ENV_CLASS_NA ? "not_applicable" : "help", v->help);
    }
    if (all)
        for (size_t i = 0; i < shoal_env_nothers; i++)
            printf("env:%s:class:other\nenv:%s:help:%s\n", shoal_env_others[i].name,
                   shoal_env_others[i].name, shoal_env_others[i].who);
}

static void print_version(void)
{
    if (parsable) {
        printf("version:shoal:%s\nversion:openshmem:%s\n", SHOAL_VERSION_STRING,
               SHOAL_INFO_SPEC_VERSION);
    } else {
        printf("Shoal %s\nOpenSHMEM %s\n", SHOAL_VERSION_STRING, SHOAL_INFO_SPEC_VERSION);
    }
}

static void print_report(void)
{
    if (parsable) {
        print_version();
    } else {
        printf("Shoal %s, an implementation of OpenSHMEM %s\n", SHOAL_VERSION_STRING,
               SHOAL_INFO_SPEC_VERSION);
        heading("Version");
        fact("version:shoal", "Shoal", SHOAL_VERSION_STRING);
        fact("version:openshmem", "OpenSHMEM spec", SHOAL_INFO_SPEC_VERSION);
    }
    heading("Build");
    fact("build:type", "Build type", SHOAL_BUILD_TYPE);
    fact("build:compiler", "Compiler", SHOAL_BUILD_COMPILER);
    fact("build:sanitizer", "Sanitizer", SHOAL_BUILD_SANITIZE);

    components("transport", "Transports", transports, NELEMS(transports));
    components("bootstrap", "Bootstraps", bootstraps, NELEMS(bootstraps));
    components("device", "Device backends", devices, NELEMS(devices));
    print_install();

    heading(all ? "Environment variables (name, default, meaning), launcher and internal "
                  "ones too"
                : "Environment variables (name, default, meaning)");
    print_env();
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: shoal-info [--all] [--parsable] [--env | --version | --help]\n"
            "Print how this Shoal was built (transports, bootstraps, device backends and\n"
            "their library versions, built with and found now), where it is installed and\n"
            "the environment variables it reads.\n"
            "  --all       also libfabric's providers on this machine, and the variables\n"
            "              oshrun sets, those read to recognise other launchers, those\n"
            "              read by Shoal's other programs, and Cray OpenSHMEMX's other\n"
            "              names and those accepted but not applicable here\n"
            "  --parsable  key:value lines (e.g. transport:ofi:version:runtime:libfabric "
            "1.17)\n"
            "  --env       only the environment variables, with defaults and meanings\n"
            "  --version   only the Shoal and OpenSHMEM versions\n"
            "  --help      this text\n");
}

int main(int argc, char **argv)
{
    enum { REPORT, ENV, VERSION } what = REPORT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--all") || !strcmp(a, "-a")) {
            all = true;
        } else if (!strcmp(a, "--parsable") || !strcmp(a, "--parseable")) {
            parsable = true;
        } else if (!strcmp(a, "--env")) {
            what = ENV;
        } else if (!strcmp(a, "--version")) {
            what = VERSION;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "shoal-info: unknown option '%s'; see shoal-info --help\n", a);
            return 2;
        }
    }
    if (what == ENV)
        print_env();
    else if (what == VERSION)
        print_version();
    else
        print_report();
    /* A report that could not be written (full disk, closed pipe) is a failure. */
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
