/* SYNCMUT_ACTIVE: which mutant this run executes.
 *
 * The value is parsed once, before main (constructor) or on the first wrapper call,
 * whichever comes first. Every problem with it ends the run with status 120 and a
 * one-line "syncmut runtime:" message: running the original instead would make a
 * broken mutant look live. */
#define _GNU_SOURCE
#include "activation.h"
#include "syncmut_protocol.h"
#include "syncmut_tables.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_server.h"
#include "trace.h"

/* Emitted by the mutator into the instrumented design. Weak so that the archives also
 * link into programs that call wrappers directly (then no range check). */
extern const uint32_t syncmut_site_count __attribute__((weak));
extern const char *const syncmut_sites[] __attribute__((weak));
extern const uint32_t syncmut_copy_count __attribute__((weak));
extern const uint32_t syncmut_copies[] __attribute__((weak));

_Static_assert(SYNCMUT_OP_COUNT <= 32, "operator sets (SYNCMUT_OPS) are 32-bit masks");

static const char *const slugs[SYNCMUT_OP_COUNT] = {
    [SYNCMUT_ORIGINAL] = "original",
#define SYNCMUT_OPERATOR(variant, c_name, slug, doc, description) [SYNCMUT_##c_name] = slug,
#include "syncmut_operators.def"
#undef SYNCMUT_OPERATOR
};

struct active_site {
    uint32_t site;
    syncmut_op op;
};

/* Written once under pthread_once, read-only afterwards. */
static struct active_site *active;
static size_t active_count;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Set once init has run: every wrapper call asks for the active operator, and
 * pthread_once through the PLT was a measurable share of a SystemC run's wrappers. */
static atomic_bool initialised;

const char *syncmut_op_slug(syncmut_op op)
{
    return (unsigned)op < SYNCMUT_OP_COUNT ? slugs[op] : "?";
}

void syncmut_fatal(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "syncmut runtime: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ssize_t ignored = write(2, line, len);
    (void)ignored;
    _exit(SYNCMUT_STATUS_CONFIG_ERROR);
}

int syncmut_instrumented(void)
{
    return &syncmut_site_count != NULL;
}

/* "file:line:col wrapper" from the mutator's table, or "" when it is absent. */
static const char *site_text(uint32_t site)
{
    if (syncmut_instrumented() && site < syncmut_site_count && syncmut_sites != NULL &&
        syncmut_sites[site] != NULL)
        return syncmut_sites[site];
    return "";
}

static syncmut_op op_from_slug(const char *slug, size_t len)
{
    /* Starts at 1: "original" is what the trace says, not an operator one can activate. */
    for (int op = SYNCMUT_REMOVE; op < SYNCMUT_OP_COUNT; op++)
        if (strlen(slugs[op]) == len && memcmp(slugs[op], slug, len) == 0)
            return (syncmut_op)op;
    return SYNCMUT_ORIGINAL;
}

/* Grammar: <site>:<slug>[,<site>:<slug>...], site decimal, no spaces, no repeated site. */
static void parse_active(const char *value)
{
    static const char usage[] = "expected <site>:<slug>[,<site>:<slug>...]";
    size_t entries = 1;
    for (const char *c = value; *c; c++)
        entries += *c == ',';
    active = calloc(entries, sizeof *active);
    if (active == NULL)
        syncmut_fatal("out of memory parsing SYNCMUT_ACTIVE");

    const char *p = value;
    for (;;) {
        if (*p < '0' || *p > '9')
            syncmut_fatal("malformed SYNCMUT_ACTIVE '%s': %s", value, usage);
        uint64_t site = 0;
        while (*p >= '0' && *p <= '9') {
            site = site * 10 + (uint64_t)(*p++ - '0');
            if (site > UINT32_MAX)
                syncmut_fatal("site number too large in SYNCMUT_ACTIVE '%s'", value);
        }
        if (*p++ != ':')
            syncmut_fatal("malformed SYNCMUT_ACTIVE '%s': %s", value, usage);
        const char *slug = p;
        while (*p && *p != ',')
            p++;
        size_t len = (size_t)(p - slug);
        if (len == 0)
            syncmut_fatal("malformed SYNCMUT_ACTIVE '%s': %s", value, usage);
        syncmut_op op = op_from_slug(slug, len);
        if (op == SYNCMUT_ORIGINAL)
            syncmut_fatal("unknown operator '%.*s' in SYNCMUT_ACTIVE '%s'", (int)len, slug, value);
        if (syncmut_instrumented() && site >= syncmut_site_count)
            syncmut_fatal("site %llu in SYNCMUT_ACTIVE '%s' does not exist (the design's sites are "
                  "numbered 0 to %lld)",
                  (unsigned long long)site, value, (long long)syncmut_site_count - 1);
        for (size_t i = 0; i < active_count; i++)
            if (active[i].site == site)
                syncmut_fatal("site %llu appears twice in SYNCMUT_ACTIVE '%s'",
                      (unsigned long long)site, value);
        active[active_count].site = (uint32_t)site;
        active[active_count].op = op;
        active_count++;
        if (*p == '\0')
            break;
        p++; /* ',' */
        if (*p == '\0')
            syncmut_fatal("malformed SYNCMUT_ACTIVE '%s': %s", value, usage);
    }
}

static void init(void)
{
    const char *value = getenv(SYNCMUT_ENV_ACTIVE);
    if (value != NULL && *value != '\0')
        parse_active(value);
    syncmut_trace_init(getenv(SYNCMUT_ENV_TRACE), value);
    __atomic_store_n(&syncmut_no_mutant, active_count == 0, __ATOMIC_RELAXED);
    atomic_store_explicit(&initialised, true, memory_order_release);
}

/* Priority 101 (the first one not reserved): run before the design's C++ static
 * constructors, so a bad SYNCMUT_ACTIVE stops the run before the design does anything,
 * and the trace's atexit handler runs after every static destructor. */
__attribute__((constructor(101))) static void init_at_startup(void)
{
    /* First: under a fork server this returns in each run, whose settings are read
     * from here on. */
    syncmut_fork_server_serve();
    pthread_once(&init_once, init);
}

syncmut_op syncmut_op_active(uint32_t site)
{
    if (!atomic_load_explicit(&initialised, memory_order_acquire))
        pthread_once(&init_once, init);
    for (size_t i = 0; i < active_count; i++)
        if (active[i].site == site)
            return active[i].op;
    return SYNCMUT_ORIGINAL;
}

int syncmut_no_mutant;

syncmut_op syncmut_op_for_active_mutant(uint32_t site, uint32_t allowed, const char *wrapper)
{
    syncmut_op op = syncmut_op_active(site);
    if (op != SYNCMUT_ORIGINAL) {
        if ((allowed & (UINT32_C(1) << op)) == 0) {
            char ops[512] = "";
            size_t used = 0;
            for (int o = SYNCMUT_REMOVE; o < SYNCMUT_OP_COUNT; o++) {
                if ((allowed & (UINT32_C(1) << o)) == 0)
                    continue;
                int n = snprintf(ops + used, sizeof ops - used, "%s%s", used ? ", " : "",
                                 slugs[o]);
                if (n < 0 || (size_t)n >= sizeof ops - used)
                    break;
                used += (size_t)n;
            }
            const char *where = *site_text(site) ? site_text(site) : wrapper;
            syncmut_fatal("operator '%s' does not apply to site %u (%s); %s supports: %s", slugs[op],
                  (unsigned)site, where, wrapper, ops);
        }
    }
    return op;
}

int syncmut_copy_active(uint32_t copy, uint32_t *site, syncmut_op *op)
{
    if (&syncmut_copy_count == NULL || copy >= syncmut_copy_count)
        syncmut_fatal("a placed copy of a call names entry %u of a copy table of %u entries",
                      (unsigned)copy, &syncmut_copy_count == NULL ? 0u : (unsigned)syncmut_copy_count);
    const uint32_t *entry = &syncmut_copies[(size_t)copy * SYNCMUT_COPY_FIELDS];
    if (entry[0] == SYNCMUT_ORIGINAL || entry[0] >= SYNCMUT_OP_COUNT)
        syncmut_fatal("copy table entry %u names operator %u, which this runtime does not have",
                      (unsigned)copy, (unsigned)entry[0]);
    *op = (syncmut_op)entry[0];
    *site = entry[1];
    return syncmut_op_active(entry[1]) == *op && syncmut_op_active(entry[2]) == *op;
}

int syncmut_call_absent(uint32_t site)
{
    if (site == (uint32_t)SYNCMUT_SITE_INNER)
        return 0;
    if (site & SYNCMUT_SITE_COPY) {
        uint32_t at;
        syncmut_op op;
        return !syncmut_copy_active(site & ~(uint32_t)SYNCMUT_SITE_COPY, &at, &op);
    }
    return (SYNCMUT_MOVES_CALL & (UINT32_C(1) << syncmut_op_active(site))) != 0;
}

int syncmut_op_position(uint32_t site, const char *ops, syncmut_op *op)
{
    *op = syncmut_op_active(site);
    if (*op == SYNCMUT_ORIGINAL)
        return 0;
    const char *slug = slugs[*op];
    size_t len = strlen(slug);
    int position = 1;
    for (const char *p = ops; *p; position++) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && memcmp(p, slug, len) == 0)
            return position;
        if (end == NULL)
            break;
        p = end + 1;
    }
    const char *where = *site_text(site) ? site_text(site) : "generated trampoline";
    syncmut_fatal("operator '%s' does not apply to site %u (%s); it supports: %s", slug, (unsigned)site,
          where, ops);
}
