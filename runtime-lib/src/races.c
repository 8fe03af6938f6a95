/* Happens-before data-race detector (FastTrack: Flanagan & Freund, PLDI 2009).
 *
 * Each thread has a vector clock; synchronization the runtime models passes clocks along
 * (unlock -> later lock of the same object, semaphore post -> wait, create -> the child,
 * the child's end -> join, barrier rounds, atomic accesses to one address, atomic
 * sections). Each shared location (by address) remembers its last write as an epoch
 * (thread, clock) and its reads as one epoch, or one epoch per reading thread once
 * several threads read it concurrently. An access that the location's earlier
 * conflicting access does not happen before is a race, whatever the interleaving: one
 * schedule in which both accesses run is enough.
 *
 * Only one design thread runs at a time under the scheduler and every entry point is
 * called by it, so nothing here takes a lock. Bounded: up to RACE_THREADS threads,
 * SYNC_SLOTS synchronization objects, SHADOW_SLOTS locations, MAX_RACES distinct pairs
 * of accesses; past a bound detection stops or a location goes unchecked, and the file
 * says so (never a race that did not happen). */
#define _GNU_SOURCE
#include "signal_safe_out.h"
#include "races.h"
#include "syncmut_protocol.h"
#include "activation.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scheduler.h"

/* glibc's own entry points, which the wrappers below call. */
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

#define RACE_THREADS 4096u
#define SYNC_SLOTS 16384u
#define SHADOW_SLOTS (1u << 20)
/* A location table fuller than this stops taking new locations (probe chains stay short). */
#define SHADOW_LIMIT (SHADOW_SLOTS / 4u * 3u)
#define MAX_HELD 8u /* locks a thread holds at once that reports name */
#define SNAP_LOCKS 4u /* locks named per remembered access */
#define MAX_RACES 256u

typedef struct {
    uint32_t n;
    uint32_t *c;
} vclock;

struct held {
    const void *obj;
    int64_t site;
    uint32_t number; /* the lock's number in this run, by first acquisition */
};

struct rthread {
    int live;
    vclock vc;
    struct held held[MAX_HELD];
    uint32_t nheld;
};

/* One remembered access: who, when (epoch), where, and the locks held. */
struct access {
    uint32_t tid;
    uint32_t clock;
    uint32_t access; /* catalogue access number */
    uint8_t write;
    uint8_t nlocks;
    int64_t lock_site[SNAP_LOCKS];
    uint32_t lock_number[SNAP_LOCKS];
};

struct location {
    const void *addr;
    int has_write, has_read;
    struct access w;
    struct access r; /* the read epoch while reads are ordered */
    struct access *reads; /* concurrent reads: one per thread (FastTrack's read vector clock) */
    uint32_t nreads, cap;
};

struct syncobj {
    const void *addr;
    vclock vc;
    uint32_t number; /* lock number, 0 until acquired as a lock */
};

struct race {
    struct access first, second;
};

static int on;
static const char *out_path_env;
static char *out_path;
static pid_t owner_pid;
static _Atomic int written;
static const char *stopped; /* why detection stopped early, or NULL */
static uint64_t untracked; /* accesses to locations the full table could not take */
static uint64_t more_races; /* distinct pairs past MAX_RACES */

static struct rthread *threads; /* RACE_THREADS, by creation number */
static struct syncobj *syncobjs; /* SYNC_SLOTS, open addressing */
static uint32_t nsyncobjs, nlocks;
static struct location *shadow; /* SHADOW_SLOTS, open addressing */
static uint32_t nlocations;
static uint32_t *taken; /* the slots of shadow in use, in the order taken (nlocations) */
static struct race races[MAX_RACES];
static _Atomic uint32_t nraces;

/* ---- vector clocks ------------------------------------------------------------------ */

static int vc_grow(vclock *v, uint32_t n)
{
    if (v->n >= n)
        return 1;
    uint32_t cap = n < 8 ? 8 : n;
    uint32_t *c = realloc(v->c, (size_t)cap * sizeof *c);
    if (c == NULL) {
        stopped = "out of memory for vector clocks";
        return 0;
    }
    memset(c + v->n, 0, (size_t)(cap - v->n) * sizeof *c);
    v->c = c;
    v->n = cap;
    return 1;
}

static uint32_t vc_get(const vclock *v, uint32_t t)
{
    return t < v->n ? v->c[t] : 0;
}

static void vc_join(vclock *into, const vclock *from)
{
    if (!vc_grow(into, from->n))
        return;
    for (uint32_t i = 0; i < from->n; i++)
        if (from->c[i] > into->c[i])
            into->c[i] = from->c[i];
}

/* ---- threads and synchronization objects -------------------------------------------- */

/* The detector's thread `t`, NULL when detection is off or stopped (every entry point
 * goes through here first). */
static struct rthread *thread(uint32_t t)
{
    if (!on || stopped != NULL)
        return NULL;
    if (t >= RACE_THREADS) {
        stopped = "more than 4096 threads";
        return NULL;
    }
    struct rthread *r = &threads[t];
    if (!r->live) {
        r->live = 1;
        if (!vc_grow(&r->vc, t + 1))
            return NULL;
        r->vc.c[t] = 1;
    }
    return r;
}

static void tick(struct rthread *r, uint32_t t)
{
    r->vc.c[t]++;
}

static uint64_t hash(const void *p)
{
    return ((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u) >> 32;
}

static struct syncobj *syncobj(const void *addr)
{
    for (uint32_t i = (uint32_t)(hash(addr) % SYNC_SLOTS);; i = (i + 1) % SYNC_SLOTS) {
        if (syncobjs[i].addr == addr)
            return &syncobjs[i];
        if (syncobjs[i].addr == NULL) {
            if (nsyncobjs + 1 >= SYNC_SLOTS / 2) {
                /* Dropping an object's edges would report races that are ordered. */
                stopped = "more than 8191 synchronization objects";
                return NULL;
            }
            nsyncobjs++;
            syncobjs[i].addr = addr;
            return &syncobjs[i];
        }
    }
}

void syncmut_races_create(uint32_t parent, uint32_t child)
{
    struct rthread *p = thread(parent), *c = thread(child);
    if (p == NULL || c == NULL)
        return;
    vc_join(&c->vc, &p->vc);
    tick(p, parent);
}

void syncmut_races_join(uint32_t joiner, uint32_t target)
{
    struct rthread *j = thread(joiner), *t = thread(target);
    if (j == NULL || t == NULL)
        return;
    vc_join(&j->vc, &t->vc);
}

void syncmut_races_acquire(uint32_t t, const void *obj, int64_t site, int lock)
{
    struct rthread *r = thread(t);
    struct syncobj *o = r != NULL ? syncobj(obj) : NULL;
    if (o == NULL)
        return;
    vc_join(&r->vc, &o->vc);
    if (lock) {
        if (o->number == 0)
            o->number = ++nlocks;
        if (r->nheld < MAX_HELD)
            r->held[r->nheld++] = (struct held){obj, site, o->number};
    }
}

void syncmut_races_release(uint32_t t, const void *obj, int lock)
{
    struct rthread *r = thread(t);
    struct syncobj *o = r != NULL ? syncobj(obj) : NULL;
    if (o == NULL)
        return;
    vc_join(&o->vc, &r->vc);
    tick(r, t);
    if (lock) /* the latest acquisition of it (recursive mutexes) */
        for (uint32_t i = r->nheld; i-- > 0;)
            if (r->held[i].obj == obj) {
                memmove(&r->held[i], &r->held[i + 1], (r->nheld - i - 1) * sizeof r->held[0]);
                r->nheld--;
                break;
            }
}

void syncmut_races_barrier(const uint32_t *ids, uint32_t n)
{
    vclock all = {0, NULL};
    for (uint32_t i = 0; i < n; i++) {
        struct rthread *r = thread(ids[i]);
        if (r == NULL)
            return;
        vc_join(&all, &r->vc);
    }
    for (uint32_t i = 0; i < n; i++) {
        struct rthread *r = &threads[ids[i]];
        vc_join(&r->vc, &all);
        tick(r, ids[i]);
    }
    free(all.c);
}

/* The address of this object stands for "the atomic section" (SV-COMP semantics: all
 * sections exclude each other). */
static const char atomic_section;

void syncmut_races_atomic_begin(uint32_t t)
{
    syncmut_races_acquire(t, &atomic_section, -1, 0);
}

void syncmut_races_atomic_end(uint32_t t)
{
    syncmut_races_release(t, &atomic_section, 0);
}

/* ---- accesses ----------------------------------------------------------------------- */

static struct location *location(const void *addr)
{
    for (uint32_t i = (uint32_t)(hash(addr) % SHADOW_SLOTS);; i = (i + 1) % SHADOW_SLOTS) {
        if (shadow[i].addr == addr)
            return &shadow[i];
        if (shadow[i].addr == NULL) {
            if (nlocations >= SHADOW_LIMIT) {
                untracked++;
                return NULL;
            }
            taken[nlocations++] = i;
            shadow[i].addr = addr;
            return &shadow[i];
        }
    }
}

static struct access now(const struct rthread *r, uint32_t t, uint32_t access, int write)
{
    struct access a;
    memset(&a, 0, sizeof a);
    a.tid = t;
    a.clock = r->vc.c[t];
    a.access = access;
    a.write = (uint8_t)write;
    for (uint32_t i = 0; i < r->nheld && a.nlocks < SNAP_LOCKS; i++) {
        a.lock_site[a.nlocks] = r->held[i].site;
        a.lock_number[a.nlocks++] = r->held[i].number;
    }
    return a;
}

/* The earlier access happens before the thread's present step. */
static int ordered(const struct access *before, const struct rthread *r)
{
    return before->clock <= vc_get(&r->vc, before->tid);
}

static void report(const struct access *first, const struct access *second)
{
    uint32_t n = atomic_load_explicit(&nraces, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++) {
        const struct race *k = &races[i];
        if ((k->first.access == first->access && k->second.access == second->access) ||
            (k->first.access == second->access && k->second.access == first->access))
            return; /* this pair of source accesses is already reported */
    }
    if (n == MAX_RACES) {
        more_races++;
        return;
    }
    races[n].first = *first;
    races[n].second = *second;
    atomic_store_explicit(&nraces, n + 1, memory_order_release);
}

void syncmut_races_access(uint32_t t, const void *addr, uint32_t flags, uint32_t access)
{
    if (!on)
        return;
    struct rthread *r = thread(t);
    if (r == NULL)
        return;
    int write = (flags & SYNCMUT_ACCESS_WRITE) != 0;
    if (flags & SYNCMUT_ACCESS_ATOMIC) {
        /* An atomic access synchronizes through its address, as if every atomic were
         * sequentially consistent: a read-modify-write is both. */
        struct syncobj *o = syncobj(addr);
        if (o == NULL)
            return;
        vc_join(&r->vc, &o->vc);
        if (write) {
            vc_join(&o->vc, &r->vc);
            tick(r, t);
        }
        return;
    }
    struct location *x = location(addr);
    if (x == NULL)
        return;
    struct access a = now(r, t, access, write);
    if (x->has_write && !(x->w.tid == t) && !ordered(&x->w, r))
        report(&x->w, &a);
    if (!write) {
        if (x->reads != NULL) { /* concurrent reads: update this thread's */
            for (uint32_t i = 0; i < x->nreads; i++)
                if (x->reads[i].tid == t) {
                    x->reads[i] = a;
                    return;
                }
            if (x->nreads == x->cap) {
                uint32_t cap = x->cap * 2;
                struct access *more = realloc(x->reads, cap * sizeof *more);
                if (more == NULL) {
                    stopped = "out of memory for read sets";
                    return;
                }
                x->reads = more;
                x->cap = cap;
            }
            x->reads[x->nreads++] = a;
        } else if (!x->has_read || x->r.tid == t || ordered(&x->r, r)) {
            x->r = a;
            x->has_read = 1;
        } else { /* a second thread reads concurrently */
            x->reads = malloc(4 * sizeof *x->reads);
            if (x->reads == NULL) {
                stopped = "out of memory for read sets";
                return;
            }
            x->cap = 4;
            x->reads[0] = x->r;
            x->reads[1] = a;
            x->nreads = 2;
        }
        return;
    }
    if (x->reads != NULL) {
        for (uint32_t i = 0; i < x->nreads; i++)
            if (x->reads[i].tid != t && !ordered(&x->reads[i], r))
                report(&x->reads[i], &a);
        free(x->reads);
        x->reads = NULL;
        x->nreads = x->cap = 0;
        x->has_read = 0;
    } else if (x->has_read && x->r.tid != t && !ordered(&x->r, r)) {
        report(&x->r, &a);
    }
    x->has_read = 0;
    x->w = a;
    x->has_write = 1;
}

/* ---- memory given back: free, realloc (and delete, which calls free) ---------------- */

/* Not under AddressSanitizer, whose own free and realloc must stay in place (a build with
 * SYNCMUT_SANITIZE keeps a freed block's accesses: reuse at the same address is what
 * ASan's quarantine delays anyway). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYNCMUT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SYNCMUT_ASAN 1
#endif
#ifndef SYNCMUT_ASAN
static int forgetting; /* inside syncmut_races_forget: the detector's own frees are not the design's */


/* A location's state as new. */
static void reset(struct location *x)
{
    forgetting = 1;
    free(x->reads);
    forgetting = 0;
    x->reads = NULL;
    x->nreads = x->cap = 0;
    x->has_read = x->has_write = 0;
}

/* The bytes [p, p + n) were given back to the allocator: their accesses are forgotten, so
 * an object the allocator later places at the same address starts with no history (its
 * accesses and the freed object's are not ordered by anything the detector sees, only by
 * the allocator: they would be reported as races). The table is probed per address, or
 * scanned along its taken slots when that is shorter. */
static void syncmut_races_forget(const char *p, size_t n)
{
    if (n <= nlocations) {
        for (size_t k = 0; k < n; k++) {
            const void *addr = p + k;
            for (uint32_t i = (uint32_t)(hash(addr) % SHADOW_SLOTS); shadow[i].addr != NULL; i = (i + 1) % SHADOW_SLOTS)
                if (shadow[i].addr == addr) {
                    reset(&shadow[i]);
                    break;
                }
        }
    } else {
        for (uint32_t k = 0; k < nlocations; k++) {
            struct location *x = &shadow[taken[k]];
            if ((const char *)x->addr >= p && (const char *)x->addr < p + n)
                reset(x);
        }
    }
}

/* Only the baton holder touches the detector's state; a thread outside the scheduler's
 * control (before main, tearing down after its end) frees memory the design's steps no
 * longer reach. */
static int forgets(const void *p)
{
    return on && p != NULL && !forgetting && syncmut_sched_controls_me();
}

void free(void *p)
{
    if (forgets(p))
        syncmut_races_forget(p, malloc_usable_size(p));
    __libc_free(p);
}

void *realloc(void *p, size_t size)
{
    if (!forgets(p))
        return __libc_realloc(p, size);
    size_t before = malloc_usable_size(p);
    void *q = __libc_realloc(p, size);
    if (q != p && (q != NULL || size == 0))
        syncmut_races_forget(p, before); /* moved or freed: the old block is gone */
    else if (q == p && malloc_usable_size(q) < before)
        syncmut_races_forget((char *)q + malloc_usable_size(q), before - malloc_usable_size(q));
    return q;
}
#endif

/* ---- SYNCMUT_RACES_OUT (async-signal-safe: open/write/close, static buffer) ---------- */

static char rout_space[1 << 12];
static struct signal_safe_out rout = { .fd = -1, .size = sizeof rout_space, .buf = rout_space };

static void rout_flush(void)
{
    signal_safe_flush(&rout);
}

static void rout_str(const char *s)
{
    signal_safe_str(&rout, s);
}

static void rout_u64(uint64_t v)
{
    signal_safe_u64(&rout, v);
}

/* <thread>:<access>:<r|w>:<locks>, locks `-` or `<site|->@<lock number>` joined by `+`. */
static void rout_access(const struct access *a)
{
    rout_u64(a->tid);
    rout_str(":");
    rout_u64(a->access);
    rout_str(a->write ? ":w:" : ":r:");
    if (a->nlocks == 0)
        rout_str("-");
    for (uint32_t i = 0; i < a->nlocks; i++) {
        if (i > 0)
            rout_str("+");
        if (a->lock_site[i] < 0)
            rout_str("-");
        else
            rout_u64((uint64_t)a->lock_site[i]);
        rout_str("@");
        rout_u64(a->lock_number[i]);
    }
}

void syncmut_races_write(void)
{
    if (!on || out_path == NULL || getpid() != owner_pid || atomic_exchange(&written, 1) != 0)
        return;
    int fd;
    do
        fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        static const char msg[] = "syncmut runtime: cannot create SYNCMUT_RACES_OUT file\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        return;
    }
    rout.fd = fd;
    rout.used = 0;
    rout_str("# syncmut-races 1\n# race <earlier access> <later access>: <thread>:<access>:<r|w>:<site>@<lock>+...|-\n");
    uint32_t n = atomic_load_explicit(&nraces, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        rout_str("race ");
        rout_access(&races[i].first);
        rout_str(" ");
        rout_access(&races[i].second);
        rout_str("\n");
    }
    if (more_races > 0) {
        rout_str("# more ");
        rout_u64(more_races);
        rout_str("\n");
    }
    if (untracked > 0) {
        rout_str("# untracked ");
        rout_u64(untracked);
        rout_str("\n");
    }
    if (stopped != NULL) {
        rout_str("# stopped ");
        rout_str(stopped);
        rout_str("\n");
    }
    rout_str("# end\n");
    rout_flush();
    close(fd);
}

/* ---- start-up ----------------------------------------------------------------------- */

int syncmut_races_on(void)
{
    return on;
}

static void *zeroed(size_t bytes)
{
#ifdef SYNCMUT_ASAN
    /* LeakSanitizer does not look for pointers in memory from mmap: the vector clocks
     * and read lists these tables point to would be reported as leaked at exit. */
    return calloc(1, bytes);
#else
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#endif
}

int syncmut_races_init(void)
{
    out_path_env = getenv(SYNCMUT_ENV_RACES_OUT);
    if (out_path_env == NULL || *out_path_env == '\0')
        return 0;
    if (out_path_env[0] == '/') {
        out_path = strdup(out_path_env);
    } else {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd) != NULL && (out_path = malloc(strlen(cwd) + strlen(out_path_env) + 2)) != NULL) {
            strcpy(out_path, cwd);
            strcat(out_path, "/");
            strcat(out_path, out_path_env);
        }
    }
    /* Untouched pages cost nothing. */
    threads = zeroed((size_t)RACE_THREADS * sizeof *threads);
    syncobjs = zeroed((size_t)SYNC_SLOTS * sizeof *syncobjs);
    shadow = zeroed((size_t)SHADOW_SLOTS * sizeof *shadow);
    taken = zeroed((size_t)SHADOW_LIMIT * sizeof *taken);
    if (out_path == NULL || threads == NULL || syncobjs == NULL || shadow == NULL || taken == NULL)
        syncmut_fatal("SYNCMUT_RACES_OUT: cannot allocate the race detector's tables for '%s'", out_path_env);
    owner_pid = getpid();
    on = 1;
    return 1;
}
