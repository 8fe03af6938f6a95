/* The execution trace the oracle compares (SYNCMUT_TRACE=<path>).
 *
 * Recording must not perturb the design: one write(2) per event cost seconds of system
 * time and changed pthread interleavings, and a lock taken on every synchronization
 * call would serialise threads. So each thread encodes its events, as they happen, into
 * a chunk of a preallocated arena that is its own (trace_internal.h); an event's seq
 * comes from one counter (trace_seq.h). Encoding as it goes, in the file's own form, is
 * what keeps the cost down: a run touches only the bytes the file will hold (about 14 an
 * event), where fixed slots and 8-byte values touched three times as much memory and the
 * flush then encoded it all again (BENCHMARKS.md, "Tracing overhead"). The file is
 * written by trace_file.c, once: at exit, or from the handler of a fatal signal.
 *
 * The file is binary (format in runtime-lib/README.md); the oracle renders JSON Lines for
 * the traces it keeps. */
#define _GNU_SOURCE
#include "trace.h"
#include "syncmut_protocol.h"
#include "trace_internal.h"
#include "trace_seq.h"
#include "arena.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACE_CAP 1000000u

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary trace stores values in host order; the oracle reads little-endian"
#endif

#define MAX_GLOBALS ((uint32_t)SYNCMUT_MAX_GLOBALS)
#define MAX_MEMBERS ((uint32_t)SYNCMUT_MAX_MEMBERS)
/* The longest record: a seq jump (9 bytes), a SystemC header (tag, six varints, two
 * bytes), a reads varint, the mask and every value as a 10-byte varint. */
#define MAX_RECORD (16 + 6 * 10 + 2 + 10 + (MAX_GLOBALS + MAX_MEMBERS) / 8 + \
                    (MAX_GLOBALS + MAX_MEMBERS) * 10)

struct trace_shared trace_shared;

/* The processes a chunk remembers for compact SystemC records. */
#define SYSTEMC_KNOWN 64u
struct known_process {
    uint32_t process; /* its name's id + 1; 0: none */
    uint32_t module;
    uint32_t cls;
};

/* The last event a chunk wrote at a site, as far as an 'A' record repeats it: the
 * thread (pthread: T<k>'s k; SystemC: the process's name id), the action (SystemC: with
 * the lost flag in bit 7), the globals read (pthread) or the module and class
 * (SystemC). Direct-mapped by site; `site` holds the site + 1, 0: none. A synchronization
 * call in a loop repeats its last event but for the snapshot (and the delta count), so
 * most events of a busy design are written as 'A'. With values written as changes, the
 * tracing-overhead designs' traces took 0.59x and 0.39x the bytes, and each byte costs
 * the kernel a share of a page fault and of the write at exit. */
#define SITE_MEMOS 64u
struct site_memo {
    uint32_t site;
    uint32_t who;
    uint64_t reads;
    uint32_t module;
    uint32_t cls;
    unsigned char action;
    bool systemc;
};

/* pthread thread numbers: k+1, 0 while the thread has recorded nothing. */
static _Atomic uint32_t next_thread;
static _Thread_local uint32_t my_thread;
/* The globals this thread's start routine can read (bit i: syncmut_globals[i]); the
 * others are left out of its snapshots, since no value it never reads can tell a
 * mutant from the original. Every global until the scheduler names the routine. */
static _Thread_local uint64_t my_reads = UINT64_MAX;

/* The calling thread's chunk. Each chunk decodes on its own: its seq count starts at 0
 * and its table of values last written at 0 (the reader keeps one per chunk). */
struct stream {
    unsigned char *chunk; /* NULL before the thread's first record, or when none was left */
    size_t used;          /* bytes of whole records after the header */
    uint64_t expected;    /* the seq the next record has unless a 'Q' precedes it */
    /* The value last written at each snapshot position (global i at i, member i at
     * nglobals + i), as its field's low bytes: an event writes only the values that
     * differ. */
    uint64_t last[MAX_GLOBALS + MAX_MEMBERS];
    /* The chunk's SystemC context: the time stamp and delta count of its last SystemC
     * record, and the processes that had a full record in it, with the module and class
     * it named (direct-mapped by process name; `process` holds the name + 1, 0: none).
     * A record at that time stamp, of a process found here with the same module and
     * class, is written compact: the reader takes the rest from the same places. */
    bool systemc_valid;
    uint32_t systemc_time;
    uint64_t systemc_delta;
    struct known_process systemc_known[SYSTEMC_KNOWN];
    struct site_memo memos[SITE_MEMOS];
};
static _Thread_local struct stream my_stream;

/* A signal handler may make a synchronization call (sem_post from a timer's handler)
 * while its thread is recording: that record must not write into the chunk under the
 * interrupted one. So the thread says where it is, and a record that interrupts another
 * goes to a second stream of the thread's own, with a chunk of its own (each chunk
 * decodes on its own, and the reader orders all by seq). Left out, and the trace
 * marked truncated: one that interrupts the taking of a seq (the count is a plain load
 * and store while one thread records) or another interrupting record. */
enum recording {
    RECORDING_NONE,
    RECORDING_CLAIMING, /* taking the seq and counting the event */
    RECORDING_WRITING,  /* writing the bytes */
    RECORDING_NESTED,   /* a record that interrupted one being written */
};
static _Thread_local volatile enum recording my_recording;
static _Thread_local struct stream my_nested_stream;

/* ---- recording ------------------------------------------------------------------- */

int syncmut_tracing;

uint64_t syncmut_trace_recorded(void)
{
    return atomic_load_explicit(&trace_shared.claimed, memory_order_relaxed);
}

/* Events each of the first threads has recorded, for the scheduler's events: strategy
 * (schedule_record.c), which reads them for threads stopped at a choice point. Each
 * slot is written by its own thread alone. */
#define COUNTED_THREADS 4096u
static _Atomic uint64_t thread_events[COUNTED_THREADS];

uint64_t syncmut_trace_thread_events(uint32_t k)
{
    return k < COUNTED_THREADS ? atomic_load_explicit(&thread_events[k], memory_order_relaxed)
                               : UINT64_MAX;
}

static void count_event(uint32_t k)
{
    if (k < COUNTED_THREADS)
        atomic_store_explicit(&thread_events[k],
                              atomic_load_explicit(&thread_events[k], memory_order_relaxed) + 1,
                              memory_order_relaxed);
}

static void mark_truncated(void)
{
    atomic_store_explicit(&trace_shared.truncated, true, memory_order_relaxed);
}

/* The next event's seq, or UINT64_MAX once the cap is reached. The load first keeps a
 * livelocked design from hammering the counter's cache line forever. */
static uint64_t claim_seq(void)
{
    if (atomic_load_explicit(&trace_shared.claimed, memory_order_relaxed) >= TRACE_CAP) {
        mark_truncated();
        return UINT64_MAX;
    }
    uint64_t seq = trace_seq_next();
    if (seq >= TRACE_CAP) {
        mark_truncated();
        return UINT64_MAX;
    }
    return seq;
}

/* Gives the calling thread a fresh chunk; false when the arena is used up. */
static bool next_chunk(struct stream *s)
{
    s->chunk = NULL;
    if (atomic_load_explicit(&trace_shared.chunks_used, memory_order_relaxed) >= trace_shared.max_chunks)
        return false;
    uint32_t i = atomic_fetch_add_explicit(&trace_shared.chunks_used, 1, memory_order_relaxed);
    if (i >= trace_shared.max_chunks)
        return false;
    s->chunk = trace_shared.chunks + (size_t)i * TRACE_CHUNK;
    syncmut_arena_prefault(trace_shared.chunks, (size_t)i * TRACE_CHUNK, TRACE_CHUNK);
    s->used = 0;
    s->expected = 0;
    memset(s->last, 0, sizeof s->last);
    s->systemc_valid = false;
    memset(s->systemc_known, 0, sizeof s->systemc_known);
    memset(s->memos, 0, sizeof s->memos);
    return true;
}

/* Where the record of event `seq` goes, with room for the longest record; NULL (and the
 * trace marked truncated) when there is no room left. Writes the seq jump if needed. */
static unsigned char *begin_record(struct stream *s, uint64_t seq)
{
    if ((s->chunk == NULL || TRACE_CHUNK_HEADER + s->used + MAX_RECORD > TRACE_CHUNK) &&
        !next_chunk(s)) {
        mark_truncated();
        return NULL;
    }
    unsigned char *p = s->chunk + TRACE_CHUNK_HEADER + s->used;
    if (seq != s->expected) {
        *p++ = SYNCMUT_TRACE_TAG_SEQ;
        memcpy(p, &seq, 8);
        p += 8;
    }
    s->expected = seq + 1;
    return p;
}

/* Marks where the thread is in its recording. The compiler keeps the record's work
 * between the marks; only the thread itself (its signal handlers) reads them. */
static inline void mark_recording(enum recording now)
{
    atomic_signal_fence(memory_order_seq_cst);
    my_recording = now;
    atomic_signal_fence(memory_order_seq_cst);
}

/* Whether a record starting now interrupts one of this thread's. */
static inline bool recording_interrupted(void)
{
    return my_recording != RECORDING_NONE;
}

/* For a record that interrupts another: whether it may go on, into my_nested_stream
 * (then marked nested until end_nested); otherwise the trace is marked truncated. */
static bool begin_nested(void)
{
    if (my_recording != RECORDING_WRITING) {
        mark_truncated();
        return false;
    }
    mark_recording(RECORDING_NESTED);
    return true;
}

static void end_nested(void)
{
    mark_recording(RECORDING_WRITING);
}

/* Claims the next event's seq and returns where its record goes (begin_record),
 * counting the event for pthread thread `k` - 1 (none when k is 0); NULL when the cap
 * or the arena is reached. The thread's own record (not `nested`) can be interrupted
 * from here on. Inlined into each record path, as put_snapshot is: a call for each part
 * of a record was 3% of a traced SystemC ping-pong and of a scheduled pthread counter
 * (measured side by side). */
static inline __attribute__((always_inline)) unsigned char *next_record(struct stream *s, uint32_t k,
                                                                        bool nested)
{
    uint64_t seq = claim_seq();
    unsigned char *p = seq == UINT64_MAX ? NULL : begin_record(s, seq);
    if (p != NULL && k != 0)
        count_event(k - 1);
    if (!nested)
        mark_recording(RECORDING_WRITING);
    return p;
}

/* Publishes the record that ends at `end`: from now on a flush writes it. */
static void end_record(struct stream *s, unsigned char *end)
{
    s->used = (size_t)(end - (s->chunk + TRACE_CHUNK_HEADER));
    atomic_store_explicit((_Atomic uint32_t *)(void *)s->chunk, (uint32_t)s->used,
                          memory_order_release);
}

/* Appends v as an unsigned LEB128 number: 7 bits a byte, low first, the high bit set
 * on every byte but the last. Sites, ids and delta counts are small, so most take one
 * byte. */
static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* A recorded field as the snapshot reads it: where (a global's address, or a member's
 * offset in its object), its size in the file, and the mask of its low bytes. Flattened
 * once at start-up from the mutator's tables, so an event's snapshot is one pass over
 * an array (perf: walking the tables field by field, with a call to memcpy and memset
 * per event, was a sixth of a traced SystemC run). */
struct snap_field {
    uint64_t where;
    uint64_t mask;
    uint32_t size;
};
static struct snap_field *global_fields;  /* trace_shared.nglobals of them */
static struct snap_field **class_fields;  /* per class (cls - 1): its recorded members */

static void flatten(struct snap_field *to, const struct syncmut_field *from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t size = trace_field_size(&from[i]);
        to[i] = (struct snap_field){from[i].where, size < 8 ? ((uint64_t)1 << (8 * size)) - 1 : UINT64_MAX, size};
    }
}

/* Appends the values of `n` fields (at `base` plus each field's `where`) that changed
 * since the chunk last wrote them (field i's last value is `last[i]`), skipping the
 * fields whose bit in `select` is clear; sets the bit of each value written in `bits`,
 * counting from `*j`. A value is written as its change: the difference from the last
 * value, taken in the field's width and sign-extended, zigzag-encoded (0, -1, 1, -2 ...
 * as 0, 1, 2, 3 ...) as a varint. A counter's step then takes one byte where its raw
 * bits took the field's size. */
static inline unsigned char *put_fields(uint64_t *last, unsigned char *p, uint64_t bits[2], uint32_t *j,
                                        const struct snap_field *f, uint32_t n, uintptr_t base,
                                        uint64_t select)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!(select >> i & 1))
            continue;
        uint32_t at = (*j)++;
        uint64_t value = trace_read_value((const void *)(base + f[i].where), f[i].size) & f[i].mask;
        if (value == last[i])
            continue;
        uint32_t shift = 64 - 8 * f[i].size;
        int64_t change = (int64_t)((value - last[i]) << shift) >> shift;
        last[i] = value;
        bits[at / 64] |= (uint64_t)1 << (at % 64);
        p = put_varint(p, ((uint64_t)change << 1) ^ (uint64_t)(change >> 63));
    }
    return p;
}

/* The snapshot: the globals in `reads`, then the members of `object` (the running
 * SystemC process's module, of class cls-1), as a mask and the values that changed.
 * Other threads may be writing them: under the controlled scheduler (and in SystemC,
 * where processes are coroutines on one thread) only one application thread runs, so
 * the read is not a race in practice; without the scheduler the snapshot is a benign,
 * best-effort read (volatile loads, never torn for naturally aligned scalars on the
 * supported targets). */
static inline __attribute__((always_inline)) unsigned char *
put_snapshot(struct stream *s, unsigned char *p, uint64_t reads, uint32_t nreads, const char *object,
             uint32_t cls)
{
    uint32_t nglobals = trace_shared.nglobals;
    uint32_t nmembers = trace_class_width(cls);
    uint32_t present = nreads + nmembers;
    if (present == 0)
        return p;
    unsigned char *mask = p;
    uint32_t mask_bytes = (present + 7) / 8;
    p += mask_bytes;
    uint64_t bits[2] = {0, 0}; /* present <= SYNCMUT_MAX_GLOBALS + SYNCMUT_MAX_MEMBERS */
    uint32_t j = 0;
    if (nreads > 0)
        p = put_fields(s->last, p, bits, &j, global_fields, nglobals, 0, reads);
    if (nmembers > 0)
        p = put_fields(s->last + nglobals, p, bits, &j, class_fields[cls - 1], nmembers,
                       (uintptr_t)object, UINT64_MAX);
    for (uint32_t i = 0; i < mask_bytes; i++)
        mask[i] = (unsigned char)(bits[i / 8] >> (8 * (i % 8)));
    return p;
}

/* The globals every snapshot of a thread that reads all of them holds. */
static inline uint64_t every_global(void)
{
    return trace_shared.nglobals >= 64 ? UINT64_MAX : ((uint64_t)1 << trace_shared.nglobals) - 1;
}

/* The controlled scheduler numbers threads by creation order; it tells the trace, so
 * `T<k>` means the same thread in the trace and in the end record whatever the
 * schedule. Called by a thread for itself before its first event. */
void syncmut_trace_set_thread_id(uint32_t k)
{
    my_thread = k + 1;
}

uint32_t syncmut_trace_claim_thread_id(void)
{
    return atomic_fetch_add_explicit(&next_thread, 1, memory_order_relaxed);
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

/* Records a pthread event into `s`: the thread's own stream, or its nested one. Inlined
 * into both callers, so the thread's own path keeps no test of which it is. */
static inline __attribute__((always_inline)) void record_pthread(struct stream *s, bool nested,
                                                                 uint32_t site, syncmut_op action,
                                                                 int join)
{
    if (my_thread == 0)
        my_thread = atomic_fetch_add_explicit(&next_thread, 1, memory_order_relaxed) + 1;
    unsigned char *p = next_record(s, my_thread, nested);
    if (p == NULL)
        return;
    uint32_t nglobals = trace_shared.nglobals;
    /* The snapshot filled by later loads belongs to the thread's own course: a record
     * from a signal handler neither opens nor closes it. */
    if (join && !nested && nglobals > 0 && syncmut_trace_reads_watching()) {
        /* Its snapshot is filled by the loads that follow (trace_reads.c): a mask and
         * every global's value at 8 bytes, in place. */
        *p++ = SYNCMUT_TRACE_TAG_JOIN;
        p = put_varint(p, site);
        p = put_varint(p, my_thread - 1);
        *p++ = (unsigned char)action;
        memset(p, 0, 8 + 8 * (size_t)nglobals);
        syncmut_trace_reads_open(p);
        end_record(s, p + 8 + 8 * (size_t)nglobals);
        return;
    }
    if (!nested)
        syncmut_trace_reads_close();
    uint64_t every = every_global();
    uint64_t reads = my_reads & every;
    struct site_memo *m = &s->memos[site % SITE_MEMOS];
    if (m->site == site + 1 && !m->systemc && m->who == my_thread - 1 &&
        m->action == (unsigned char)action && m->reads == reads) {
        *p++ = SYNCMUT_TRACE_TAG_AGAIN;
        p = put_varint(p, site);
    } else {
        *p++ = reads == every ? SYNCMUT_TRACE_TAG_PTHREAD : SYNCMUT_TRACE_TAG_PTHREAD_READS;
        p = put_varint(p, site);
        p = put_varint(p, my_thread - 1);
        *p++ = (unsigned char)action;
        if (reads != every)
            p = put_varint(p, reads);
        *m = (struct site_memo){site + 1, my_thread - 1, reads, 0, 0, (unsigned char)action, false};
    }
    uint32_t nreads = reads == every ? nglobals : (uint32_t)__builtin_popcountll(reads);
    end_record(s, put_snapshot(s, p, reads, nreads, NULL, 0));
}

static __attribute__((noinline, cold)) void record_pthread_nested(uint32_t site, syncmut_op action)
{
    if (!begin_nested())
        return;
    record_pthread(&my_nested_stream, true, site, action, 0);
    end_nested();
}

void syncmut_trace_pthread(uint32_t site, syncmut_op action, int join)
{
    if (!syncmut_tracing)
        return;
    if (recording_interrupted()) {
        record_pthread_nested(site, action);
        return;
    }
    mark_recording(RECORDING_CLAIMING);
    record_pthread(&my_stream, false, site, action, join);
    mark_recording(RECORDING_NONE);
}

uint32_t syncmut_trace_class_of(const char *type_name)
{
    if (type_name == NULL)
        return 0;
    if (*type_name == '*') /* GCC marks types with internal linkage so */
        type_name++;
    for (uint32_t i = 0; i < trace_shared.nclasses; i++)
        if (syncmut_classes[i].type_name != NULL && strcmp(syncmut_classes[i].type_name, type_name) == 0)
            return i + 1;
    return 0;
}

/* Records a SystemC event into `s`, as record_pthread does. */
static inline __attribute__((always_inline)) void
record_systemc(struct stream *s, bool nested, uint32_t site, syncmut_op action, uint32_t process,
               uint32_t time, uint64_t delta, uint32_t flags, const void *object, uint32_t module,
               uint32_t cls)
{
    unsigned char *p = next_record(s, 0, nested);
    if (p == NULL)
        return;
    if (object == NULL || cls > trace_shared.nclasses)
        cls = 0;
    /* Compact when the chunk's context holds all but the site, the process, the delta
     * count (as its increase) and the action, with the lost flag in its high bit: about
     * half the bytes of a ping-pong's events. */
    struct known_process *known = &s->systemc_known[process % SYSTEMC_KNOWN];
    struct site_memo *m = &s->memos[site % SITE_MEMOS];
    unsigned char act = (unsigned char)((uint32_t)action | (flags & SYNCMUT_EVENT_LOST ? 0x80u : 0u));
    bool in_context = s->systemc_valid && time == s->systemc_time && delta >= s->systemc_delta &&
                      (flags & ~(uint32_t)SYNCMUT_EVENT_LOST) == 0 && (uint32_t)action < 0x80;
    if (in_context && m->site == site + 1 && m->systemc && m->who == process &&
        m->action == act && m->module == module && m->cls == cls) {
        *p++ = SYNCMUT_TRACE_TAG_AGAIN;
        p = put_varint(p, site);
        p = put_varint(p, delta - s->systemc_delta);
    } else if (in_context && known->process == process + 1 && known->module == module &&
               known->cls == cls) {
        *p++ = SYNCMUT_TRACE_TAG_SYSTEMC_SAME;
        p = put_varint(p, site);
        p = put_varint(p, process);
        p = put_varint(p, delta - s->systemc_delta);
        *p++ = act;
        *m = (struct site_memo){site + 1, process, 0, module, cls, act, true};
    } else {
        *p++ = SYNCMUT_TRACE_TAG_SYSTEMC;
        p = put_varint(p, site);
        p = put_varint(p, process);
        p = put_varint(p, time);
        p = put_varint(p, module);
        p = put_varint(p, delta);
        p = put_varint(p, cls);
        *p++ = (unsigned char)action;
        *p++ = (unsigned char)flags;
        if (process != UINT32_MAX) {
            known->process = process + 1;
            known->module = module;
            known->cls = cls;
        }
        s->systemc_valid = true;
        s->systemc_time = time;
        /* An action past 7 bits has no 'A' form: its act would alias another's. */
        *m = (struct site_memo){(uint32_t)action < 0x80 ? site + 1 : 0, process, 0, module, cls, act, true};
    }
    s->systemc_delta = delta;
    end_record(s, put_snapshot(s, p, every_global(), trace_shared.nglobals, object, cls));
}

static __attribute__((noinline, cold)) void
record_systemc_nested(uint32_t site, syncmut_op action, uint32_t process, uint32_t time,
                      uint64_t delta, uint32_t flags, const void *object, uint32_t module,
                      uint32_t cls)
{
    if (!begin_nested())
        return;
    record_systemc(&my_nested_stream, true, site, action, process, time, delta, flags, object,
                   module, cls);
    end_nested();
}

void syncmut_trace_systemc(uint32_t site, syncmut_op action, uint32_t process, uint32_t time,
                           uint64_t delta, uint32_t flags, const void *object, uint32_t module,
                           uint32_t cls)
{
    if (!syncmut_tracing)
        return;
    if (recording_interrupted()) {
        record_systemc_nested(site, action, process, time, delta, flags, object, module, cls);
        return;
    }
    mark_recording(RECORDING_CLAIMING);
    record_systemc(&my_stream, false, site, action, process, time, delta, flags, object, module,
                   cls);
    mark_recording(RECORDING_NONE);
}

/* ---- start-up -------------------------------------------------------------------- */

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

/* The number of globals and classes recorded, and the chunks: enough for the cap's
 * events at a typical size, plus one for each of thousands of threads (a thread's chunk
 * is its own, so a short-lived thread leaves most of one unused). Only touched pages
 * cost memory. */
static void prepare_state_tables(void)
{
    if (&syncmut_global_count != NULL && syncmut_globals != NULL)
        trace_shared.nglobals = syncmut_global_count < MAX_GLOBALS ? syncmut_global_count : MAX_GLOBALS;
    uint32_t most = 0;
    if (&syncmut_class_count != NULL && syncmut_classes != NULL)
        trace_shared.nclasses = syncmut_class_count < UINT16_MAX ? syncmut_class_count : UINT16_MAX;
    global_fields = calloc(trace_shared.nglobals + 1, sizeof *global_fields);
    class_fields = calloc(trace_shared.nclasses + 1, sizeof *class_fields);
    if (global_fields == NULL || class_fields == NULL)
        syncmut_fatal("SYNCMUT_TRACE: cannot allocate the snapshot tables");
    flatten(global_fields, syncmut_globals, trace_shared.nglobals);
    for (uint32_t c = 0; c < trace_shared.nclasses; c++) {
        uint32_t n = trace_class_width(c + 1);
        most = n > most ? n : most;
        class_fields[c] = calloc(n + 1, sizeof **class_fields);
        if (class_fields[c] == NULL)
            syncmut_fatal("SYNCMUT_TRACE: cannot allocate the snapshot tables");
        flatten(class_fields[c], syncmut_classes[c].fields, n);
    }
    uint64_t typical = 24 + 9 * (uint64_t)(trace_shared.nglobals + most);
    trace_shared.max_chunks = (uint32_t)(TRACE_CAP * typical / (TRACE_CHUNK - MAX_RECORD) + 8192);
}

void syncmut_trace_init(const char *path, const char *active)
{
    if (path == NULL || *path == '\0')
        return;
    trace_shared.path = absolute(path);
    trace_shared.active = strdup(active != NULL ? active : "");
    prepare_state_tables();
    trace_shared.chunks = syncmut_arena((size_t)trace_shared.max_chunks * TRACE_CHUNK);
    if (trace_shared.path == NULL || trace_shared.active == NULL || trace_shared.chunks == NULL)
        syncmut_fatal("SYNCMUT_TRACE: cannot allocate the trace buffer for '%s'", path);
    trace_shared.owner_pid = getpid();
    trace_seq_init();
    /* The initialising thread is the main thread (constructor): it is T0 whether or not
     * it records first, so thread names do not depend on which thread syncs first. */
    if (gettid() == trace_shared.owner_pid)
        my_thread = atomic_fetch_add_explicit(&next_thread, 1, memory_order_relaxed) + 1;
    syncmut_tracing = 1;
    trace_file_install();
}
