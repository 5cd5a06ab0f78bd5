/* Writes Shoal's manual pages from man/pages.txt and the OpenSHMEM type tables
 * (include/shoal/type_tables.h, the tables shmem.h is generated from), so every
 * typed name the headers declare gets a page: one page per routine family, and
 * for each other name of the family a one-line page that includes it (.so).
 *
 *   mangen PAGES.txt OUTDIR VERSION [HELPDIR]
 *
 * pages.txt, one directive per line (text lines follow @synopsis, @description,
 * @return, @notes; a blank line starts a new paragraph):
 *   @page NAME SECTION brief       starts a page
 *   @names n...                    more names the page documents
 *   @typed TABLE pattern...        TYPENAME/TYPE in each pattern, over a type table
 *   @sized pattern...              SIZE in each pattern: 8 16 32 64 128
 *   @help PROGRAM                  PROGRAM's --help output (HELPDIR/PROGRAM.txt)
 *   @see ref...                    e.g. shmem_get(3)
 * A name given to two pages is an error, so the pages cannot drift apart. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shoal/type_tables.h"

struct row { const char *type, *name; };
struct table { const char *name; const struct row *rows; size_t n; };

#define ROW(T, N) { #T, #N },
#define TABLE(NAME)                                                                  \
    { #NAME, (const struct row[]){ SHMEM_##NAME##_TYPES(ROW) },                      \
      sizeof((const struct row[]){ SHMEM_##NAME##_TYPES(ROW) }) / sizeof(struct row) }

static const struct table tables[] = {
    TABLE(RMA), TABLE(AMO_STD), TABLE(AMO_EXT), TABLE(AMO_BIT), TABLE(SYNC), TABLE(SYNC_DEPR),
    TABLE(DEPR_AMO_EXT), TABLE(DEPR_AMO_STD), TABLE(DEPR_WAIT), TABLE(REDUCE_BITWISE),
    TABLE(REDUCE_MINMAX), TABLE(REDUCE_ARITH), TABLE(TO_ALL_BITWISE), TABLE(TO_ALL_MINMAX),
    TABLE(TO_ALL_ARITH),
};
#define SIZES(X) SHMEM_RMA_SIZES(X)
#define SIZE_STR(S) #S,
static const char *const sizes[] = { SIZES(SIZE_STR) };

#define MAX_LINES 4096
#define MAX_NAMES 8192

enum part { P_NONE, P_SYNOPSIS, P_DESCRIPTION, P_RETURN, P_NOTES };

struct page {
    char name[128], section[8], brief[512];
    char *heads[64];            /* names and patterns for the NAME section */
    int nheads;
    const struct table *used[8];
    int nused;
    char *text[5][MAX_LINES];   /* per part */
    int ntext[5];
    char help[128];
    char see[1024];
};

static const char *pages_file, *outdir, *version, *helpdir;
static int lineno;
static char *all_names[MAX_NAMES];
static int n_all;

static _Noreturn void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "mangen: %s:%d: ", pages_file, lineno);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static char *dup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        die("out of memory%s", "");
    return d;
}

/* Writes s as roff text: backslashes doubled, a leading . or ' made literal. */
static void roff(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++)
        fputs(*s == '\\' ? "\\e" : *s == '-' ? "\\-" : (char[]){ *s, 0 }, f);
    fputc('\n', f);
}

static FILE *open_out(const char *name, const char *section)
{
    char dir[4096], path[4400];
    snprintf(dir, sizeof dir, "%s/man%s", outdir, section);
    if (mkdir(dir, 0777) && errno != EEXIST)
        die("cannot create %s", dir);
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, section);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s", path);
    return f;
}

/* Records a name for a page; every name belongs to exactly one page. */
static void claim(const struct page *p, const char *name)
{
    for (int i = 0; i < n_all; i++)
        if (!strcmp(all_names[i], name))
            die("%s is documented twice", name);
    if (n_all == MAX_NAMES)
        die("more than MAX_NAMES names%s", "");
    all_names[n_all++] = dup(name);
    if (strcmp(name, p->name)) {
        FILE *f = open_out(name, p->section);
        fprintf(f, ".so man%s/%s.%s\n", p->section, p->name, p->section);
        fclose(f);
    }
}

/* pattern with "from" replaced by "to" (every occurrence) into out. */
static void subst(const char *pattern, const char *from, const char *to, char *out, size_t len)
{
    size_t at = 0, fl = strlen(from);
    for (const char *s = pattern; *s && at + 1 < len;) {
        if (!strncmp(s, from, fl)) {
            at += (size_t)snprintf(out + at, len - at, "%s", to);
            s += fl;
        } else {
            out[at++] = *s++;
        }
    }
    out[at < len ? at : len - 1] = '\0';
}

static void add_head(struct page *p, const char *h)
{
    if (p->nheads < (int)(sizeof p->heads / sizeof p->heads[0]))
        p->heads[p->nheads++] = dup(h);
}

static void directive_names(struct page *p, char *args, const char *kind)
{
    const struct table *t = NULL;
    char *save, *word = strtok_r(args, " \t", &save);
    if (!strcmp(kind, "typed")) {
        for (size_t i = 0; word && i < sizeof tables / sizeof tables[0]; i++)
            if (!strcmp(tables[i].name, word))
                t = &tables[i];
        if (!t)
            die("@typed wants a type table name, not %s", word ? word : "nothing");
        if (p->nused < 8)
            p->used[p->nused++] = t;
        word = strtok_r(NULL, " \t", &save);
    }
    for (; word; word = strtok_r(NULL, " \t", &save)) {
        char name[256];
        if (!t && !strcmp(word, p->name))
            continue;           /* the page's own name heads it already */
        add_head(p, word);
        if (t) {
            for (size_t r = 0; r < t->n; r++) {
                subst(word, "TYPENAME", t->rows[r].name, name, sizeof name);
                claim(p, name);
            }
        } else if (!strcmp(kind, "sized")) {
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                subst(word, "SIZE", sizes[s], name, sizeof name);
                claim(p, name);
            }
        } else {
            claim(p, word);
        }
    }
}

static void write_text(FILE *f, char **lines, int n)
{
    for (int i = 0; i < n; i++) {
        if (!*lines[i])
            fputs(".PP\n", f);
        else
            roff(f, lines[i]);
    }
}

static void write_page(struct page *p)
{
    static const char *const titles[] = { "", "SYNOPSIS", "DESCRIPTION", "RETURN VALUE", "NOTES" };
    FILE *f = open_out(p->name, p->section);
    /* The first line asks man to run tbl, for the TYPES table. */
    fprintf(f, "'\\\" t\n.\\\" Generated by man/mangen.c from man/pages.txt; edit those instead.\n");
    fprintf(f, ".TH %s %s \"\" \"Shoal %s\" \"%s\"\n", p->name, p->section, version,
            p->section[0] == '1' ? "Shoal commands" : "OpenSHMEM Library Routines");
    fprintf(f, ".SH NAME\n");
    for (int i = 0; i < p->nheads; i++) {
        fprintf(f, "%s%s", i ? ", " : "", p->heads[i]);
    }
    fprintf(f, " \\- ");
    roff(f, p->brief);
    for (int part = P_SYNOPSIS; part <= P_NOTES; part++) {
        if (!p->ntext[part]) {
            if (part == P_SYNOPSIS && p->section[0] == '3')
                die("page %s has no @synopsis", p->name);
            continue;
        }
        fprintf(f, ".SH %s\n", titles[part]);
        if (part == P_SYNOPSIS) {
            fprintf(f, ".nf\n");
            if (p->section[0] == '3')
                fprintf(f, ".B #include <%s.h>\n.sp\n",
                        strncmp(p->name, "shmemx_", 7) ? "shmem" : "shmemx");
            for (int i = 0; i < p->ntext[part]; i++)
                roff(f, p->text[part][i]);
            fprintf(f, ".fi\n");
        } else {
            write_text(f, p->text[part], p->ntext[part]);
        }
        if (part == P_DESCRIPTION && p->help[0]) {
            char path[4400], line[4096];
            snprintf(path, sizeof path, "%s/%s.txt", helpdir ? helpdir : ".", p->help);
            FILE *h = fopen(path, "r");
            if (!h)
                die("@help: cannot read %s", path);
            fprintf(f, ".SH OPTIONS\nThe text of\n.B %s \\-\\-help:\n.PP\n.nf\n", p->help);
            while (fgets(line, sizeof line, h)) {
                line[strcspn(line, "\n")] = '\0';
                roff(f, line);
            }
            fprintf(f, ".fi\n");
            fclose(h);
        }
        if (part == P_DESCRIPTION && p->nused) {
            fprintf(f, ".SH TYPES\nTYPE and TYPENAME in the names above:\n.PP\n.TS\nl l.\n"
                       "TYPE\tTYPENAME\n");
            const struct table *t = p->used[0];
            for (int u = 1; u < p->nused; u++)   /* the widest table lists them all */
                if (p->used[u]->n > t->n)
                    t = p->used[u];
            for (size_t r = 0; r < t->n; r++)
                fprintf(f, "%s\t%s\n", t->rows[r].type, t->rows[r].name);
            fprintf(f, ".TE\n");
            if (p->nused > 1)
                fprintf(f, "Not every family above takes every type: shmem.h declares which.\n");
        }
    }
    if (p->see[0]) {
        fprintf(f, ".SH SEE ALSO\n");
        char *save, *w = strtok_r(p->see, " \t", &save);
        for (int first = 1; w; w = strtok_r(NULL, " \t", &save), first = 0) {
            char *paren = strchr(w, '(');
            if (paren)
                *paren = '\0';
            fprintf(f, "%s.BR %s (%s)\n", first ? "" : ",\n", w, paren ? paren + 1 : "3)");
        }
        fputc('\n', f);
    }
    fclose(f);
}

static void free_page(struct page *p)
{
    for (int i = 0; i < p->nheads; i++)
        free(p->heads[i]);
    for (int part = 0; part < 5; part++)
        for (int i = 0; i < p->ntext[part]; i++)
            free(p->text[part][i]);
    free(p);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mangen PAGES.txt OUTDIR VERSION [HELPDIR]\n");
        return 2;
    }
    pages_file = argv[1];
    outdir = argv[2];
    version = argv[3];
    helpdir = argc > 4 ? argv[4] : NULL;
    FILE *in = fopen(pages_file, "r");
    if (!in)
        die("cannot read the pages file%s", "");
    if (mkdir(outdir, 0777) && errno != EEXIST)
        die("cannot create %s", outdir);
    struct page *p = NULL;
    enum part part = P_NONE;
    char line[4096];
    int pages = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#')
            continue;
        if (line[0] != '@') {
            if (!p || part == P_NONE) {
                if (line[0])
                    die("text outside a section: %s", line);
                continue;
            }
            if (p->ntext[part] == MAX_LINES)
                die("section too long%s", "");
            p->text[part][p->ntext[part]++] = dup(line);
            continue;
        }
        char *arg = line + strcspn(line, " \t");
        if (*arg)
            *arg++ = '\0';
        if (!strcmp(line, "@page")) {
            if (p) {
                write_page(p);
                free_page(p);
            }
            p = calloc(1, sizeof *p);
            if (!p || sscanf(arg, "%127s %7s %511[^\n]", p->name, p->section, p->brief) != 3)
                die("@page wants NAME SECTION brief: %s", arg);
            part = P_NONE;
            pages++;
            claim(p, p->name);
            add_head(p, p->name);
        } else if (!p) {
            die("%s before the first @page", line);
        } else if (!strcmp(line, "@names") || !strcmp(line, "@typed") || !strcmp(line, "@sized")) {
            directive_names(p, arg, line + 1);
        } else if (!strcmp(line, "@synopsis")) {
            part = P_SYNOPSIS;
        } else if (!strcmp(line, "@description")) {
            part = P_DESCRIPTION;
        } else if (!strcmp(line, "@return")) {
            part = P_RETURN;
        } else if (!strcmp(line, "@notes")) {
            part = P_NOTES;
        } else if (!strcmp(line, "@help")) {
            snprintf(p->help, sizeof p->help, "%s", arg);
        } else if (!strcmp(line, "@see")) {
            snprintf(p->see, sizeof p->see, "%s", arg);
        } else {
            die("unknown directive %s", line);
        }
    }
    if (p) {
        write_page(p);
        free_page(p);
    }
    fclose(in);
    for (int i = 0; i < n_all; i++)
        free(all_names[i]);
    printf("mangen: %d pages, %d names\n", pages, n_all);
    return 0;
}
