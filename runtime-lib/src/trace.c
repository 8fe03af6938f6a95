/* The execution trace the oracle compares (SYNCMUT_TRACE=<path>).
 *
 * Recording must not perturb the design: one write(2) per event cost seconds of system
 * time and changed pthread interleavings, and a lock taken on every
 * synchronization call would serialise threads. So an event is a fixed-size record in a
 * preallocated buffer, claimed with one atomic increment (its slot number is its seq) and
 * published with a release store. The file is written once: at exit, or from the handler
 * of a fatal signal, with only async-signal-safe calls (open, write, close).
 *
 * The file is binary (format in runtime-lib/README.md): the records as they are in memory
 * plus the tables that name their numbers. Formatting JSON here cost more than the
 * design's own run (BENCHMARKS.md); the oracle renders JSON Lines for the traces it
 * keeps. */
#define _GNU_SOURCE
#include "trace.h"
#include "syncmut_protocol.h"
#include "syncmut_tables.h"

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

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary trace stores records in host order; the oracle reads little-endian"
#endif

/* The design's site table (emitted by the mutator; weak: absent in hand-linked tests). */
extern const uint32_t syncmut_site_count __attribute__((weak));
extern const char *const syncmut_sites[] __attribute__((weak));

/* What a state snapshot records (emitted by the mutator, layout in syncmut_tables.h;
 * weak likewise): the design's own global variables, and per SystemC module class the
 * data members of its objects. */
extern const uint32_t syncmut_global_count __attribute__((weak));
extern const struct syncmut_field syncmut_globals[] __attribute__((weak));
extern const uint32_t syncmut_class_count __attribute__((weak));
extern const struct syncmut_class syncmut_classes[] __attribute__((weak));
extern const uint32_t syncmut_thread_read_count __attribute__((weak));
extern const struct syncmut_thread_reads syncmut_thread_reads[] __attribute__((weak));

#define MAX_GLOBALS ((uint32_t)SYNCMUT_MAX_GLOBALS)
#define MAX_MEMBERS ((uint32_t)SYNCMUT_MAX_MEMBERS)

enum { KIND_PTHREAD = 1, KIND_SYSTEMC = 2 };

struct event {
    uint32_t site;
    uint32_t thread; /* pthread: k of T<k>; SystemC: interned process name */
    uint32_t time;   /* SystemC: interned sc_time_stamp() text */
    uint32_t module; /* SystemC: interned name of the process's module (with cls) */
    union {
        uint64_t delta; /* SystemC */
        uint64_t reads; /* pthread: the globals the thread can read (syncmut_thread_reads) */
    };
    uint16_t cls;    /* SystemC: 1 + index in syncmut_classes of the module's class, 0: none */
    uint8_t action;  /* syncmut_op */
    uint8_t kind;
    uint8_t flags;  /* SystemC: SYNCMUT_EVENT_* */
    _Atomic uint8_t ready; /* set last: the flush skips a record still being written */
};

static bool trace_on;            /* written once at start-up */
static struct event *events;     /* TRACE_CAP records, mmap'd: untouched pages cost nothing */
static _Atomic uint64_t claimed; /* slots handed out, may run past TRACE_CAP */
static atomic_bool truncated;
static atomic_int flushed;
static char *trace_path;   /* absolute, so a chdir in the design does not move the file */
static char *active_value; /* SYNCMUT_ACTIVE as given, for the header line */
static pid_t owner_pid;    /* a forked child must not write the parent's file */

/* State snapshots: `width` values per event (the globals, then the members of the
 * running process's module), event seq at states[seq * width]; a second mmap'd arena
 * beside `events`, absent (width 0) when there is nothing to record. */
static uint32_t nglobals;
static uint32_t nclasses;
static uint32_t width;
static uint64_t *states;
/* pthread thread numbers: k+1, 0 while the thread has recorded nothing. */
static _Atomic uint32_t next_thread;
static _Thread_local uint32_t my_thread;
/* The globals this thread's start routine can read (bit i: syncmut_globals[i]); the
 * others are left out of its snapshots, since no value it never reads can tell a
 * mutant from the original. Every global until the scheduler names the routine. */
static _Thread_local uint64_t my_reads = UINT64_MAX;

#define STR_NONE UINT32_MAX

/* ---- recording ------------------------------------------------------------------- */

int syncmut_trace_on(void)
{
    return trace_on;
}

uint64_t syncmut_trace_recorded(void)
{
    return atomic_load_explicit(&claimed, memory_order_relaxed);
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

void syncmut_trace_set_thread_routine(const char *routine)
{
    my_reads = UINT64_MAX;
    syncmut_trace_reads_watch();
    if (&syncmut_thread_read_count == NULL || routine == NULL)
        return;
    for (uint32_t i = 0; i < syncmut_thread_read_count; i++)
        if (strcmp(syncmut_thread_reads[i].routine, routine) == 0) {
            my_reads = syncmut_thread_reads[i].reads;
            return;
        }
}

/* Reads `size` bytes at p (volatile: see snapshot()). */
static inline uint64_t read_value(const void *p, uint32_t size)
{
    switch (size) {
    case 1: return *(const volatile uint8_t *)p;
    case 2: return *(const volatile uint16_t *)p;
    case 4: return *(const volatile uint32_t *)p;
    default: return *(const volatile uint64_t *)p;
    }
}

/* Copies the globals' current values, and the members of `object` (the running SystemC
 * process's module, of class cls-1) into the event's snapshot. Other threads may be
 * writing them: under the controlled scheduler (and in SystemC, where processes are
 * coroutines on one thread) only one application thread runs, so the read is not a
 * race in practice; without the scheduler the snapshot is a benign, best-effort read
 * (volatile loads, never torn for naturally aligned scalars on the supported targets). */
static inline void snapshot(const struct event *ev, const char *object, uint32_t cls)
{
    if (width == 0)
        return;
    uint64_t *dst = &states[(size_t)(ev - events) * width];
    for (uint32_t i = 0; i < nglobals; i++)
        dst[i] = read_value((const void *)(uintptr_t)syncmut_globals[i].where, syncmut_globals[i].size);
    if (cls != 0) {
        const struct syncmut_class *c = &syncmut_classes[cls - 1];
        uint32_t n = c->nfields < MAX_MEMBERS ? (uint32_t)c->nfields : MAX_MEMBERS;
        for (uint32_t i = 0; i < n; i++)
            dst[nglobals + i] = read_value(object + c->fields[i].where, c->fields[i].size);
    }
}

void syncmut_trace_pthread(uint32_t site, syncmut_op action, int join)
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
    ev->cls = 0;
    ev->reads = my_reads;
    snapshot(ev, NULL, 0);
    if (width > 0 && syncmut_trace_reads_watching() && join)
        syncmut_trace_reads_open(&states[(size_t)(ev - events) * width], &ev->reads);
    else
        syncmut_trace_reads_close();
    atomic_store_explicit(&ev->ready, 1, memory_order_release);
}

uint32_t syncmut_trace_class_of(const char *type_name)
{
    if (type_name == NULL)
        return 0;
    if (*type_name == '*') /* GCC marks types with internal linkage so */
        type_name++;
    for (uint32_t i = 0; i < nclasses; i++)
        if (syncmut_classes[i].type_name != NULL && strcmp(syncmut_classes[i].type_name, type_name) == 0)
            return i + 1;
    return 0;
}

void syncmut_trace_systemc(uint32_t site, syncmut_op action, uint32_t process, uint32_t time,
                           uint64_t delta, uint32_t flags, const void *object, uint32_t module,
                           uint32_t cls)
{
    if (!trace_on)
        return;
    struct event *ev = claim_slot();
    if (ev == NULL)
        return;
    if (object == NULL || cls > nclasses)
        cls = 0;
    ev->site = site;
    ev->thread = process;
    ev->time = time;
    ev->delta = delta;
    ev->module = module;
    ev->cls = (uint16_t)cls;
    ev->action = (uint8_t)action;
    ev->kind = KIND_SYSTEMC;
    ev->flags = (uint8_t)flags;
    snapshot(ev, object, cls);
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

static inline void out_bytes(const char *s, size_t len)
{
    if (len <= sizeof out.buf - out.used) {
        memcpy(out.buf + out.used, s, len);
        out.used += len;
        return;
    }
    out_bytes_slow(s, len);
}

/* Numbers little-endian, whatever the host (the oracle reads them so). */
static void out_u8(uint8_t v)
{
    out_bytes((const char *)&v, 1);
}

static void out_u32(uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    out_bytes((const char *)b, 4);
}

static void out_u64(uint64_t v)
{
    out_u32((uint32_t)v);
    out_u32((uint32_t)(v >> 32));
}

/* A string: its length (u32), then its bytes as they are (the reader decodes UTF-8). */
static void out_text(const char *text)
{
    size_t len = strlen(text);
    out_u32((uint32_t)len);
    out_bytes(text, len);
}

/* A field's width in the file: its size, as the schema declares it. */
static inline uint32_t field_size(const struct syncmut_field *f)
{
    return f->size >= 1 && f->size <= 8 ? f->size : 8u;
}

/* One field of the state schema: how the oracle decodes and names its values. */
static void out_field(const struct syncmut_field *f)
{
    out_text(f->name != NULL ? f->name : "?");
    out_u8((uint8_t)f->kind);
    out_u8((uint8_t)field_size(f));
    uint32_t nenums = f->enums != NULL ? f->nenums : 0;
    out_u32(nenums);
    for (uint32_t i = 0; i < nenums; i++) {
        out_u64(f->enums[i].value);
        out_text(f->enums[i].name != NULL ? f->enums[i].name : "?");
    }
}

/* The members recorded for class `cls` (1-based; 0: none). */
static uint32_t class_width(uint32_t cls)
{
    if (cls == 0)
        return 0;
    uint64_t n = syncmut_classes[cls - 1].nfields;
    return n < MAX_MEMBERS ? (uint32_t)n : MAX_MEMBERS;
}

/* Appends v as an unsigned LEB128 number: 7 bits a byte, low first, the high bit set
 * on every byte but the last. Sites, ids and delta counts are small, so most take one
 * byte where the fixed-width form took 4 or 8. */
static inline size_t put_varint(char *rec, size_t len, uint64_t v)
{
    while (v >= 0x80) {
        rec[len++] = (char)(v | 0x80);
        v >>= 7;
    }
    rec[len++] = (char)v;
    return len;
}

/* The value last written at each snapshot position (global i at i, member i at
 * nglobals + i), as its field's low bytes: an event writes only the values that differ,
 * and the reader keeps the same table. Zero before the first event, on both sides. */
static uint64_t last_written[MAX_GLOBALS + MAX_MEMBERS];

/* Appends one snapshot value at `pos` if it changed, setting bit j of the mask at
 * `mask` (the j-th value present in this event). */
static inline size_t put_value(char *rec, size_t len, size_t mask, uint32_t j, uint32_t pos,
                               uint64_t value, uint32_t size)
{
    uint64_t bits = size >= 8 ? value : value & (((uint64_t)1 << (8 * size)) - 1);
    if (bits == last_written[pos])
        return len;
    last_written[pos] = bits;
    rec[mask + j / 8] |= (char)(1u << (j % 8));
    memcpy(rec + len, &bits, size);
    return len + size;
}

/* One event, as few bytes as the reader needs (the kernel's copy of the file is most of
 * what the flush costs): seq is implicit (one more than the last event's; a 'Q' record
 * with a u64 sets it when a slot was skipped), pthread events have no time or module.
 * Numbers are varints (put_varint):
 *   'P' site, thread (k of T<k>), action u8
 *   'R' the same, then reads: only the globals whose bit is set are present
 *   'S' site, thread, time, module (interned ids), delta, cls, action u8, flags u8
 * then the snapshot: a mask of one bit per value present (the globals, then the members
 * of class cls; ceil(n/8) bytes), and the values whose bit is set, each in its field's
 * size (the low bytes of the value read); a clear bit repeats the last value written at
 * that position. Packed into a stack buffer so an event is one copy; values are stored
 * in host order, hence the little-endian check at the top. */
static void out_event(uint64_t seq, uint64_t *expected, const struct event *ev)
{
    if (seq != *expected) {
        out_u8(SYNCMUT_TRACE_TAG_SEQ);
        out_u64(seq);
    }
    *expected = seq + 1;
    char rec[64 + (MAX_GLOBALS + MAX_MEMBERS) * 9];
    size_t len = put_varint(rec, 1, ev->site);
    len = put_varint(rec, len, ev->thread);
    uint64_t every = nglobals >= 64 ? UINT64_MAX : ((uint64_t)1 << nglobals) - 1;
    uint64_t reads = every;
    if (ev->kind == KIND_PTHREAD) {
        rec[0] = SYNCMUT_TRACE_TAG_PTHREAD;
        rec[len++] = (char)ev->action;
        if ((ev->reads & every) != every) {
            reads = ev->reads & every;
            rec[0] = SYNCMUT_TRACE_TAG_PTHREAD_READS;
            len = put_varint(rec, len, reads);
        }
    } else {
        rec[0] = SYNCMUT_TRACE_TAG_SYSTEMC;
        len = put_varint(rec, len, ev->time);
        len = put_varint(rec, len, ev->module);
        len = put_varint(rec, len, ev->delta);
        len = put_varint(rec, len, ev->cls);
        rec[len++] = (char)ev->action;
        rec[len++] = (char)ev->flags;
    }
    uint32_t nmembers = class_width(ev->cls);
    uint32_t present = (uint32_t)__builtin_popcountll(reads) + nmembers;
    size_t mask = len;
    memset(rec + mask, 0, (present + 7) / 8);
    len += (present + 7) / 8;
    const uint64_t *values = &states[seq * width];
    uint32_t j = 0;
    for (uint32_t i = 0; i < nglobals; i++) {
        if (reads >> i & 1)
            len = put_value(rec, len, mask, j++, i, values[i], field_size(&syncmut_globals[i]));
    }
    for (uint32_t i = 0; i < nmembers; i++)
        len = put_value(rec, len, mask, j++, nglobals + i, values[nglobals + i],
                        field_size(&syncmut_classes[ev->cls - 1].fields[i]));
    out_bytes(rec, len);
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
    bool is_exit = strcmp(how->kind, "exit") == 0;
    end->at_exit = is_exit;
    end->deadlock = 0;
    end->npending = 0;
    syncmut_end_provider provider = atomic_load_explicit(&end_provider, memory_order_acquire);
    if (provider != NULL)
        provider(end);
    if (end->npending > SYNCMUT_MAX_PENDING)
        end->npending = SYNCMUT_MAX_PENDING;
    bool is_deadlock = strcmp(how->kind, "deadlock") == 0;
    if (is_deadlock)
        end->deadlock = 1;

    /* tag, kind, signal (has u8, i32), culprit (has u8, text), site i64 (-1: none),
     * deadlock u8, pending count u32, then per pending thread: text, site i64. Names as
     * text, not ids: the provider may intern them after the string table was written. */
    out_u8(SYNCMUT_TRACE_TAG_END);
    out_text(how->kind);
    bool is_signal = strcmp(how->kind, "signal") == 0;
    out_u8(is_signal);
    out_u32((uint32_t)(is_signal ? how->signal : 0));
    out_u8(how->thread != STR_NONE);
    out_text(how->thread != STR_NONE ? syncmut_trace_string(how->thread) : "");
    out_u64((uint64_t)(how->site >= 0 ? how->site : -1));
    out_u8(end->deadlock != 0);
    out_u32(end->npending);
    for (uint32_t i = 0; i < end->npending; i++) {
        out_text(syncmut_trace_string(end->pending[i].thread));
        out_u64((uint64_t)(end->pending[i].site >= 0 ? end->pending[i].site : -1));
    }
}

/* The header and the tables that name the records' numbers: magic, version, active,
 * the operator slugs (action numbers), the state schema (globals, then per class its
 * members), the interned strings (thread, time and module ids). */
static void out_preamble(void)
{
    out_bytes(SYNCMUT_TRACE_MAGIC, 8);
    out_u32(SYNCMUT_TRACE_VERSION);
    out_text(active_value);
    out_u32(SYNCMUT_OP_COUNT);
    for (int op = 0; op < SYNCMUT_OP_COUNT; op++)
        out_text(syncmut_op_slug((syncmut_op)op));
    out_u32(nglobals);
    for (uint32_t i = 0; i < nglobals; i++)
        out_field(&syncmut_globals[i]);
    out_u32(nclasses);
    for (uint32_t c = 0; c < nclasses; c++) {
        uint32_t n = class_width(c + 1);
        out_u32(n);
        for (uint32_t i = 0; i < n; i++)
            out_field(&syncmut_classes[c].fields[i]);
    }
    /* Strings interned later (by the end provider) are not referenced by any record. */
    uint32_t nstrings = syncmut_trace_string_count();
    out_u32(nstrings);
    for (uint32_t id = 0; id < nstrings; id++)
        out_text(syncmut_trace_string(id));
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
    uint64_t n = atomic_load_explicit(&claimed, memory_order_relaxed);
    if (n > TRACE_CAP)
        n = TRACE_CAP;
    out_preamble();
    uint64_t expected = 0;
    for (uint64_t seq = 0; seq < n; seq++) {
        const struct event *ev = &events[seq];
        if (!atomic_load_explicit(&ev->ready, memory_order_acquire))
            continue; /* being written by a thread the signal interrupted */
        out_event(seq, &expected, ev);
    }
    if (atomic_load_explicit(&truncated, memory_order_relaxed))
        out_u8(SYNCMUT_TRACE_TAG_TRUNCATED);
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
        n = append(line, n, sizeof line, syncmut_trace_string(thread));
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

/* A buffer of `size` bytes, reserved but not backed until touched (MAP_FAILED on error).
 * Its first 2 MiB in ordinary pages, the rest in huge pages where the kernel offers them
 * on request: filling a long trace page by page took one fault every 170 events (perf:
 * 15% of a traced SystemC run), but a huge page is zeroed whole at its first touch, and
 * for the short runs of a schedule search (a few hundred events) zeroing the two
 * buffers' first huge pages was the largest cost of a run (perf: 15% of a served search). */
static void *arena(size_t size)
{
    /* Reserve 2 MiB more, so the huge pages past the first 2 MiB start at a boundary. */
    const size_t huge = (size_t)2 << 20;
    char *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return MAP_FAILED;
    char *start = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
    if (size > huge)
        madvise(start + huge, size - huge, MADV_HUGEPAGE);
#endif
    return start;
}

/* The number of globals and classes recorded, and the snapshot width. */
static void prepare_state_tables(void)
{
    if (&syncmut_global_count != NULL && syncmut_globals != NULL)
        nglobals = syncmut_global_count < MAX_GLOBALS ? syncmut_global_count : MAX_GLOBALS;
    uint32_t most = 0;
    if (&syncmut_class_count != NULL && syncmut_classes != NULL)
        nclasses = syncmut_class_count < UINT16_MAX ? syncmut_class_count : UINT16_MAX;
    for (uint32_t c = 0; c < nclasses; c++) {
        uint32_t n = class_width(c + 1);
        most = n > most ? n : most;
    }
    width = nglobals + most;
}

void syncmut_trace_init(const char *path, const char *active)
{
    if (path == NULL || *path == '\0')
        return;
    trace_path = absolute(path);
    active_value = strdup(active != NULL ? active : "");
    events = arena((size_t)TRACE_CAP * sizeof *events);
    prepare_state_tables();
    if (width > 0)
        states = arena((size_t)TRACE_CAP * width * sizeof *states);
    if (trace_path == NULL || active_value == NULL || events == MAP_FAILED ||
        states == MAP_FAILED) {
        say("syncmut runtime: cannot allocate the trace buffer for ", path, "\n");
        _exit(SYNCMUT_STATUS_CONFIG_ERROR);
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
