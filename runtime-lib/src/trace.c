/* The execution trace the oracle compares (SYNCMUT_TRACE=<path>).
 *
 * Recording must not perturb the design: one write(2) per event cost seconds of system
 * time and changed pthread interleavings (TOOLCHAIN.md), and a lock taken on every
 * synchronization call would serialise threads. So an event is a fixed-size record in a
 * preallocated buffer, claimed with one atomic increment (its slot number is its seq) and
 * published with a release store. The file is written once: at exit, or from the handler
 * of a fatal signal, with only async-signal-safe calls (open, write, close). */
#define _GNU_SOURCE
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TRACE_CAP 1000000u

/* The design's site table (emitted by the mutator; weak: absent in hand-linked tests). */
extern const uint32_t syncmut_site_count __attribute__((weak));
extern const char *const syncmut_sites[] __attribute__((weak));

/* The design's own global variables (emitted by the mutator; weak likewise). Each event
 * copies their values into a state snapshot: kind 0 signed int, 1 unsigned int,
 * 2 bool, 3 pointer (printed as "null"/"non-null"). */
struct syncmut_global {
    const char *name;
    const void *addr;
    uint32_t size; /* 1, 2, 4 or 8 */
    uint32_t kind;
};
extern const uint32_t syncmut_global_count __attribute__((weak));
extern const struct syncmut_global syncmut_globals[] __attribute__((weak));

#define MAX_GLOBALS 64u
enum { GLOBAL_SIGNED = 0, GLOBAL_UNSIGNED = 1, GLOBAL_BOOL = 2, GLOBAL_POINTER = 3 };

enum { KIND_PTHREAD = 1, KIND_SYSTEMC = 2 };

struct event {
    uint32_t site;
    uint32_t thread; /* pthread: k of T<k>; SystemC: interned process name */
    uint32_t time;   /* SystemC: interned sc_time_stamp() text */
    uint8_t action;  /* syncmut_op */
    uint8_t kind;
    uint8_t flags;  /* SystemC: SYNCMUT_EVENT_* */
    _Atomic uint8_t ready; /* set last: the flush skips a record still being written */
    uint64_t delta;
};

static bool trace_on;            /* written once at start-up */
static struct event *events;     /* TRACE_CAP records, mmap'd: untouched pages cost nothing */
static _Atomic uint64_t claimed; /* slots handed out, may run past TRACE_CAP */
static atomic_bool truncated;
static atomic_int flushed;
static char *trace_path;   /* absolute, so a chdir in the design does not move the file */
static char *active_value; /* SYNCMUT_ACTIVE as given, for the header line */
static pid_t owner_pid;    /* a forked child must not write the parent's file */

/* State snapshots: nglobals values per event, slot seq at states[seq * nglobals]; a
 * second mmap'd arena beside `events`, absent (nglobals 0) when the design has none. */
static uint32_t nglobals;
static uint64_t *states;
/* `"name":` per global, JSON-ready, built at start-up so the flush copies it in one
 * piece (NULL: the name needs escaping, done at flush time). */
static char *global_keys[MAX_GLOBALS];
static size_t global_key_lens[MAX_GLOBALS];

/* pthread thread numbers: k+1, 0 while the thread has recorded nothing. */
static _Atomic uint32_t next_thread;
static _Thread_local uint32_t my_thread;

/* ---- interned strings (SystemC process names and time stamps) -------------------
 * The flush may run in a signal handler while another thread interns, so the strings
 * live in fixed chunks that never move; only the lookup hash (never read by the flush)
 * is reallocated, under the mutex. */
#define STR_CHUNK 1024u
#define STR_CHUNKS 4096u /* 4M strings: more than 2 new strings per recorded event */
#define STR_NONE UINT32_MAX

static char **str_chunks[STR_CHUNKS];
static _Atomic uint32_t str_count;
static uint32_t *str_hash; /* id+1, 0 = empty; open addressing */
static size_t str_hash_cap;
static pthread_mutex_t str_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *str_get(uint32_t id)
{
    if (id >= atomic_load_explicit(&str_count, memory_order_acquire))
        return "?";
    return str_chunks[id / STR_CHUNK][id % STR_CHUNK];
}

static uint64_t str_hash_of(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static bool str_hash_grow(void)
{
    size_t cap = str_hash_cap ? str_hash_cap * 2 : 256;
    uint32_t *table = calloc(cap, sizeof *table);
    if (table == NULL)
        return false;
    uint32_t count = atomic_load_explicit(&str_count, memory_order_relaxed);
    for (uint32_t id = 0; id < count; id++) {
        size_t i = (size_t)str_hash_of(str_get(id)) & (cap - 1);
        while (table[i] != 0)
            i = (i + 1) & (cap - 1);
        table[i] = id + 1;
    }
    free(str_hash);
    str_hash = table;
    str_hash_cap = cap;
    return true;
}

uint32_t syncmut_trace_intern(const char *text)
{
    uint32_t result = STR_NONE;
    pthread_mutex_lock(&str_lock);
    uint32_t count = atomic_load_explicit(&str_count, memory_order_relaxed);
    if ((size_t)(count + 1) * 2 > str_hash_cap && !str_hash_grow())
        goto out;
    size_t i = (size_t)str_hash_of(text) & (str_hash_cap - 1);
    for (; str_hash[i] != 0; i = (i + 1) & (str_hash_cap - 1)) {
        if (strcmp(str_get(str_hash[i] - 1), text) == 0) {
            result = str_hash[i] - 1;
            goto out;
        }
    }
    if (count >= STR_CHUNK * STR_CHUNKS)
        goto out;
    char **chunk = str_chunks[count / STR_CHUNK];
    if (chunk == NULL) {
        chunk = calloc(STR_CHUNK, sizeof *chunk);
        if (chunk == NULL)
            goto out;
        str_chunks[count / STR_CHUNK] = chunk;
    }
    char *copy = strdup(text);
    if (copy == NULL)
        goto out;
    chunk[count % STR_CHUNK] = copy;
    atomic_store_explicit(&str_count, count + 1, memory_order_release);
    str_hash[i] = count + 1;
    result = count;
out:
    pthread_mutex_unlock(&str_lock);
    return result;
}

/* ---- recording ------------------------------------------------------------------- */

int syncmut_trace_on(void)
{
    return trace_on;
}

/* The next free record, or NULL once the cap is reached. The load first keeps a
 * livelocked design from hammering the counter's cache line forever. */
static struct event *claim_slot(void)
{
    if (atomic_load_explicit(&claimed, memory_order_relaxed) >= TRACE_CAP) {
        atomic_store_explicit(&truncated, true, memory_order_relaxed);
        return NULL;
    }
    uint64_t slot = atomic_fetch_add_explicit(&claimed, 1, memory_order_relaxed);
    if (slot >= TRACE_CAP) {
        atomic_store_explicit(&truncated, true, memory_order_relaxed);
        return NULL;
    }
    return &events[slot];
}

/* The controlled scheduler numbers threads by creation order; it tells the trace, so
 * `T<k>` means the same thread in the trace and in the end record whatever the
 * schedule. Called by a thread for itself before its first event. */
void syncmut_trace_set_thread_id(uint32_t k)
{
    my_thread = k + 1;
}

/* Copies the globals' current values into the event's snapshot. Other threads may be
 * writing them: under the controlled scheduler (and in SystemC, where processes are
 * coroutines on one thread) only one application thread runs, so the read is not a
 * race in practice; without the scheduler the snapshot is a benign, best-effort read
 * (volatile loads, never torn for naturally aligned scalars on the supported targets). */
static inline void snapshot(const struct event *ev)
{
    if (nglobals == 0)
        return;
    uint64_t *dst = &states[(size_t)(ev - events) * nglobals];
    for (uint32_t i = 0; i < nglobals; i++) {
        const void *p = syncmut_globals[i].addr;
        switch (syncmut_globals[i].size) {
        case 1: dst[i] = *(const volatile uint8_t *)p; break;
        case 2: dst[i] = *(const volatile uint16_t *)p; break;
        case 4: dst[i] = *(const volatile uint32_t *)p; break;
        default: dst[i] = *(const volatile uint64_t *)p; break;
        }
    }
}

void syncmut_trace_pthread(uint32_t site, syncmut_op action)
{
    if (!trace_on)
        return;
    if (my_thread == 0)
        my_thread = atomic_fetch_add_explicit(&next_thread, 1, memory_order_relaxed) + 1;
    struct event *ev = claim_slot();
    if (ev == NULL)
        return;
    ev->site = site;
    ev->thread = my_thread - 1;
    ev->action = (uint8_t)action;
    ev->kind = KIND_PTHREAD;
    snapshot(ev);
    atomic_store_explicit(&ev->ready, 1, memory_order_release);
}

void syncmut_trace_systemc(uint32_t site, syncmut_op action, uint32_t process, uint32_t time,
                           uint64_t delta, uint32_t flags)
{
    if (!trace_on)
        return;
    struct event *ev = claim_slot();
    if (ev == NULL)
        return;
    ev->site = site;
    ev->thread = process;
    ev->time = time;
    ev->delta = delta;
    ev->action = (uint8_t)action;
    ev->kind = KIND_SYSTEMC;
    ev->flags = (uint8_t)flags;
    snapshot(ev);
    atomic_store_explicit(&ev->ready, 1, memory_order_release);
}

/* ---- writing the file (async-signal-safe from here on) ---------------------------- */

struct out {
    int fd;
    bool failed;
    size_t used;
    char buf[1 << 16];
};

static struct out out; /* static: the flush may run on a small signal stack */

static void out_flush(void)
{
    size_t done = 0;
    while (done < out.used && !out.failed) {
        ssize_t n = write(out.fd, out.buf + done, out.used - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            out.failed = true;
        else
            done += (size_t)n;
    }
    out.used = 0;
}

static void out_bytes_slow(const char *s, size_t len)
{
    while (len > 0) {
        if (out.used == sizeof out.buf)
            out_flush();
        size_t n = sizeof out.buf - out.used;
        if (n > len)
            n = len;
        memcpy(out.buf + out.used, s, n);
        out.used += n;
        s += n;
        len -= n;
    }
}

/* The flush writes ~80 bytes an event in small pieces; the common case (room in the
 * buffer) must stay a plain inlined memcpy. */
static inline void out_bytes(const char *s, size_t len)
{
    if (len <= sizeof out.buf - out.used) {
        memcpy(out.buf + out.used, s, len);
        out.used += len;
        return;
    }
    out_bytes_slow(s, len);
}

static void out_str(const char *s)
{
    out_bytes(s, strlen(s));
}

/* A string literal: its length is known at compile time (no strlen per piece). */
#define OUT_LIT(lit) out_bytes("" lit, sizeof(lit) - 1)

static void out_u64(uint64_t v)
{
    /* Two digits per division: the flush prints ~5 numbers per event. */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char digits[24];
    size_t i = sizeof digits;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        digits[--i] = pairs[2 * r + 1];
        digits[--i] = pairs[2 * r];
    }
    if (v >= 10) {
        digits[--i] = pairs[2 * v + 1];
        digits[--i] = pairs[2 * v];
    } else {
        digits[--i] = (char)('0' + v);
    }
    out_bytes(digits + i, sizeof digits - i);
}

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n;
    uint32_t min;
    if (s[0] < 0x80)
        return 1;
    else if ((s[0] & 0xE0) == 0xC0)
        n = 2, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3, min = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
        n = 4, min = 0x10000;
    else
        return 0;
    uint32_t cp = s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* A JSON string literal. Bytes that are not valid UTF-8 are written as \u00XX (the
 * Latin-1 reading) so the file always parses. */
static void out_json(const char *text)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)text;
    out_bytes("\"", 1);
    while (*s) {
        /* Copy runs of plain ASCII at once: names and time stamps are almost always
         * all plain, and a call per character dominated the flush (callgrind). */
        const unsigned char *run = s;
        while (*run >= 0x20 && *run < 0x80 && *run != '"' && *run != '\\')
            run++;
        if (run != s) {
            out_bytes((const char *)s, (size_t)(run - s));
            s = run;
            continue;
        }
        size_t n = utf8_len(s);
        if (*s == '"' || *s == '\\') {
            char esc[2] = {'\\', (char)*s};
            out_bytes(esc, 2);
            n = 1;
        } else if (*s == '\n') {
            out_bytes("\\n", 2), n = 1;
        } else if (*s == '\t') {
            out_bytes("\\t", 2), n = 1;
        } else if (*s < 0x20 || n == 0) {
            char esc[6] = {'\\', 'u', '0', '0', hex[*s >> 4], hex[*s & 15]};
            out_bytes(esc, 6);
            n = 1;
        } else {
            out_bytes((const char *)s, n);
        }
        s += n;
    }
    out_bytes("\"", 1);
}

/* ,"state":{"name":value,...} for event `seq`, nothing when there are no globals. */
static void out_state(uint64_t seq)
{
    if (nglobals == 0)
        return;
    const uint64_t *values = &states[seq * nglobals];
    OUT_LIT(",\"state\":{");
    for (uint32_t i = 0; i < nglobals; i++) {
        const struct syncmut_global *g = &syncmut_globals[i];
        uint64_t v = values[i];
        if (i > 0)
            out_bytes(",", 1);
        if (global_keys[i] != NULL) {
            out_bytes(global_keys[i], global_key_lens[i]);
        } else {
            out_json(g->name != NULL ? g->name : "?");
            out_bytes(":", 1);
        }
        switch (g->kind) {
        case GLOBAL_BOOL:
            if (v != 0)
                OUT_LIT("true");
            else
                OUT_LIT("false");
            break;
        case GLOBAL_POINTER:
            if (v != 0)
                OUT_LIT("\"non-null\"");
            else
                OUT_LIT("\"null\"");
            break;
        case GLOBAL_UNSIGNED:
            out_u64(v);
            break;
        default: {
            /* Sign-extend from the global's width. */
            unsigned shift = 64u - 8u * (g->size >= 1 && g->size <= 8 ? g->size : 8u);
            int64_t s = (int64_t)(v << shift) >> shift;
            if (s < 0) {
                out_bytes("-", 1);
                out_u64((uint64_t)0 - (uint64_t)s);
            } else {
                out_u64((uint64_t)s);
            }
            break;
        }
        }
    }
    out_bytes("}", 1);
}

static void say(const char *a, const char *b, const char *c)
{
    /* Only when the trace cannot be written: the harness must learn why it is missing. */
    ssize_t ignored = write(2, a, strlen(a));
    ignored = write(2, b, strlen(b));
    ignored = write(2, c, strlen(c));
    (void)ignored;
}

/* ---- the end record ---------------------------------------------------------------- */

static _Atomic(syncmut_end_provider) end_provider;
static syncmut_end end_state; /* static: filled at flush time, no allocation */

void syncmut_trace_set_end_provider(syncmut_end_provider provider)
{
    atomic_store_explicit(&end_provider, provider, memory_order_release);
}

/* How the run ended, for the last line of the trace. */
struct ending {
    const char *kind; /* "exit", "signal", "livelock", "deadlock" */
    int signal;       /* "signal": the signal number */
    uint32_t thread;  /* "livelock": interned culprit, STR_NONE if none */
    int64_t site;     /* "livelock": its site, -1 if none */
};

static void out_end(const struct ending *how)
{
    syncmut_end *end = &end_state;
    end->deadlock = 0;
    end->npending = 0;
    syncmut_end_provider provider = atomic_load_explicit(&end_provider, memory_order_acquire);
    if (provider != NULL)
        provider(end);
    if (end->npending > SYNCMUT_MAX_PENDING)
        end->npending = SYNCMUT_MAX_PENDING;
    bool is_exit = strcmp(how->kind, "exit") == 0;
    bool is_deadlock = strcmp(how->kind, "deadlock") == 0;
    if (is_deadlock)
        end->deadlock = 1;

    out_str("{\"end\":");
    out_json(how->kind);
    if (strcmp(how->kind, "signal") == 0) {
        out_str(",\"signal\":");
        out_u64((uint64_t)how->signal);
    }
    if (how->thread != STR_NONE) {
        out_str(",\"thread\":");
        out_json(str_get(how->thread));
    }
    if (how->site >= 0) {
        out_str(",\"site\":");
        out_u64((uint64_t)how->site);
    }
    /* Always stated for "exit" and "deadlock"; elsewhere only when the provider saw one. */
    if (is_exit || is_deadlock || end->deadlock)
        out_str(end->deadlock ? ",\"deadlock\":true" : ",\"deadlock\":false");
    out_str(",\"pending\":[");
    for (uint32_t i = 0; i < end->npending; i++) {
        out_str(i == 0 ? "{\"thread\":" : ",{\"thread\":");
        out_json(str_get(end->pending[i].thread));
        if (end->pending[i].site >= 0) {
            out_str(",\"site\":");
            out_u64((uint64_t)end->pending[i].site);
        }
        out_str("}");
    }
    out_str("]}\n");
}

static void trace_flush(const struct ending *how)
{
    if (!trace_on || getpid() != owner_pid || atomic_exchange(&flushed, 1) != 0)
        return;
    int fd;
    do
        fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        say("syncmut runtime: cannot create trace file ", trace_path, "\n");
        return;
    }
    out.fd = fd;
    out.failed = false;
    out.used = 0;
    out_str("{\"syncmut_trace\":1,\"active\":");
    out_json(active_value);
    out_str("}\n");
    uint64_t n = atomic_load_explicit(&claimed, memory_order_relaxed);
    if (n > TRACE_CAP)
        n = TRACE_CAP;
    for (uint64_t seq = 0; seq < n; seq++) {
        const struct event *ev = &events[seq];
        if (!atomic_load_explicit(&ev->ready, memory_order_acquire))
            continue; /* being written by a thread the signal interrupted */
        OUT_LIT("{\"seq\":");
        out_u64(seq);
        OUT_LIT(",\"site\":");
        out_u64(ev->site);
        OUT_LIT(",\"action\":");
        out_json(syncmut_op_slug((syncmut_op)ev->action));
        OUT_LIT(",\"thread\":");
        if (ev->kind == KIND_PTHREAD) {
            OUT_LIT("\"T");
            out_u64(ev->thread);
            OUT_LIT("\"");
            out_state(seq);
            OUT_LIT("}\n");
        } else {
            out_json(str_get(ev->thread));
            OUT_LIT(",\"time\":");
            out_json(str_get(ev->time));
            OUT_LIT(",\"delta\":");
            out_u64(ev->delta);
            if (ev->flags & SYNCMUT_EVENT_LOST)
                OUT_LIT(",\"lost\":true");
            out_state(seq);
            OUT_LIT("}\n");
        }
    }
    if (atomic_load_explicit(&truncated, memory_order_relaxed))
        OUT_LIT("{\"truncated\":true}\n");
    out_end(how);
    out_flush();
    if (out.failed)
        say("syncmut runtime: error writing trace file ", trace_path, "\n");
    close(fd);
}

static void flush_at_exit(void)
{
    struct ending how = {"exit", 0, STR_NONE, -1};
    trace_flush(&how);
}

/* Appends text to a fixed buffer, truncating. */
static size_t append(char *buf, size_t used, size_t cap, const char *text)
{
    while (*text && used + 1 < cap)
        buf[used++] = *text++;
    buf[used] = '\0';
    return used;
}

static const char *decimal(char digits[24], uint64_t v)
{
    size_t i = 23;
    digits[i] = '\0';
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return digits + i;
}

void syncmut_trace_finish(const char *kind, uint32_t thread, int64_t site, int status)
{
    /* One line on stderr whether or not a trace is written (one write, so it is not
     * interleaved with the design's output): the run ends abnormally and whoever reads
     * its output must learn why. */
    char line[512], digits[24];
    size_t n = append(line, 0, sizeof line, "syncmut runtime: ");
    n = append(line, n, sizeof line, kind);
    n = append(line, n, sizeof line, " detected");
    if (thread != STR_NONE) {
        n = append(line, n, sizeof line, " in ");
        n = append(line, n, sizeof line, str_get(thread));
    }
    if (site >= 0) {
        n = append(line, n, sizeof line, " at site ");
        n = append(line, n, sizeof line, decimal(digits, (uint64_t)site));
        if (&syncmut_site_count != NULL && syncmut_sites != NULL &&
            (uint64_t)site < syncmut_site_count && syncmut_sites[site] != NULL) {
            n = append(line, n, sizeof line, " (");
            n = append(line, n, sizeof line, syncmut_sites[site]);
            n = append(line, n, sizeof line, ")");
        }
    }
    n = append(line, n, sizeof line, "; run ended with exit status ");
    n = append(line, n, sizeof line, decimal(digits, (uint64_t)(unsigned)status));
    n = append(line, n, sizeof line, "\n");
    ssize_t ignored = write(2, line, n);
    (void)ignored;

    struct ending how = {kind, 0, thread, site};
    trace_flush(&how);
    _exit(status);
}

/* Fatal signals, plus SIGTERM/SIGINT so a harness that stops a hung (deadlocked) run
 * still gets the trace showing where each thread stopped. */
static const int flush_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT};

static void on_signal(int sig)
{
    int saved = errno;
    struct ending how = {"signal", sig, STR_NONE, -1};
    trace_flush(&how);
    /* Die of the same signal, with the default action, so the exit status is unchanged:
     * the signal is blocked while this handler runs and is delivered when it returns. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

static void install_signal_handlers(void)
{
    /* A stack overflow (e.g. in a SystemC thread's coroutine stack) leaves no stack for
     * the handler: give the main thread, where SystemC processes run, an alternate one. */
    size_t size = 64 * 1024;
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem != MAP_FAILED) {
        stack_t ss = {.ss_sp = mem, .ss_size = size, .ss_flags = 0};
        sigaltstack(&ss, NULL);
    }
    for (size_t i = 0; i < sizeof flush_signals / sizeof flush_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(flush_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* inherited "ignore" (e.g. nohup): keep the design's behaviour */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_ONSTACK;
        sigaction(flush_signals[i], &sa, NULL);
    }
}

static char *absolute(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) == NULL)
        return strdup(path);
    size_t len = strlen(cwd) + 1 + strlen(path) + 1;
    char *full = malloc(len);
    if (full != NULL) {
        strcpy(full, cwd);
        strcat(full, "/");
        strcat(full, path);
    }
    return full;
}

void syncmut_trace_init(const char *path, const char *active)
{
    if (path == NULL || *path == '\0')
        return;
    trace_path = absolute(path);
    active_value = strdup(active != NULL ? active : "");
    events = mmap(NULL, (size_t)TRACE_CAP * sizeof *events, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (&syncmut_global_count != NULL && syncmut_globals != NULL && syncmut_global_count > 0) {
        nglobals = syncmut_global_count < MAX_GLOBALS ? syncmut_global_count : MAX_GLOBALS;
        states = mmap(NULL, (size_t)TRACE_CAP * nglobals * sizeof *states, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        for (uint32_t i = 0; i < nglobals; i++) {
            const char *name = syncmut_globals[i].name;
            bool plain = name != NULL;
            for (const char *c = name; plain && *c; c++)
                plain = (unsigned char)*c >= 0x20 && (unsigned char)*c < 0x80 && *c != '"' && *c != '\\';
            size_t len = plain ? strlen(name) : 0;
            char *key = plain ? malloc(len + 3) : NULL;
            if (key != NULL) {
                key[0] = '"';
                memcpy(key + 1, name, len);
                key[len + 1] = '"';
                key[len + 2] = ':';
                global_keys[i] = key;
                global_key_lens[i] = len + 3;
            }
        }
    }
    if (trace_path == NULL || active_value == NULL || events == MAP_FAILED ||
        states == MAP_FAILED) {
        say("syncmut runtime: cannot allocate the trace buffer for ", path, "\n");
        _exit(120);
    }
    owner_pid = getpid();
    /* The initialising thread is the main thread (constructor): it is T0 whether or not
     * it records first, so thread names do not depend on which thread syncs first. */
    if (gettid() == owner_pid)
        my_thread = atomic_fetch_add_explicit(&next_thread, 1, memory_order_relaxed) + 1;
    trace_on = true;
    atexit(flush_at_exit);
    install_signal_handlers();
}
