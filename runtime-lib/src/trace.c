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

/* What a state snapshot records (emitted by the mutator, mutator/src/state_table.rs; weak
 * likewise): the design's own global variables, and per SystemC module class the data
 * members of its objects. A field is read as `size` bytes at `where` (a global's
 * address, or a member's offset in its module object) and printed by `kind`. */
struct syncmut_enumerator {
    uint64_t value; /* the type's raw bits, zero-extended */
    const char *name;
};
struct syncmut_field {
    const char *name;
    uint64_t where;
    const struct syncmut_enumerator *enums;
    uint32_t size; /* 1, 2, 4 or 8 */
    uint32_t kind;
    uint32_t nenums;
};
struct syncmut_class {
    const char *type_name; /* typeid(object).name() */
    const struct syncmut_field *fields;
    uint64_t nfields;
};
extern const uint32_t syncmut_global_count __attribute__((weak));
extern const struct syncmut_field syncmut_globals[] __attribute__((weak));
extern const uint32_t syncmut_class_count __attribute__((weak));
extern const struct syncmut_class syncmut_classes[] __attribute__((weak));

#define MAX_GLOBALS 64u
#define MAX_MEMBERS 32u /* mutator/src/members.rs caps classes at this many */
enum {
    FIELD_SIGNED = 0,
    FIELD_UNSIGNED = 1,
    FIELD_BOOL = 2,
    FIELD_POINTER = 3, /* printed as "null"/"non-null" */
    FIELD_ENUM = 4,    /* the enumerator's name; else signed */
    FIELD_UENUM = 5,   /* the enumerator's name; else unsigned */
    FIELD_RAW = 6,     /* "0x" and the bytes in memory order */
};

enum { KIND_PTHREAD = 1, KIND_SYSTEMC = 2 };

struct event {
    uint32_t site;
    uint32_t thread; /* pthread: k of T<k>; SystemC: interned process name */
    uint32_t time;   /* SystemC: interned sc_time_stamp() text */
    uint32_t module; /* SystemC: interned name of the process's module (with cls) */
    uint64_t delta;
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
/* JSON-ready pieces built at start-up so the flush only copies bytes: `"name":` per
 * global, `.name":` per member (written after the module's name), each enumerator's
 * name as a JSON string. NULL where memory ran out: the flush then writes a stand-in. */
struct piece {
    const char *text;
    uint32_t len;
};
static struct piece global_keys[MAX_GLOBALS];
static struct piece **member_keys;             /* per class, per member */
static struct piece *global_enum_names[MAX_GLOBALS]; /* per enumerator */
static struct piece ***member_enum_names;          /* per class, per member, per enumerator */
static struct piece op_json[SYNCMUT_OP_COUNT];     /* "original", "remove", ... */

/* pthread thread numbers: k+1, 0 while the thread has recorded nothing. */
static _Atomic uint32_t next_thread;
static _Thread_local uint32_t my_thread;

/* ---- JSON strings -------------------------------------------------------------------- */

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

typedef void (*sink)(void *to, const char *bytes, size_t len);

/* The body of a JSON string literal for `text` (no quotes), in pieces to `put`. Bytes
 * that are not valid UTF-8 are written as \u00XX (the Latin-1 reading) so the file always
 * parses. Async-signal-safe if `put` is. */
static void json_escape(const char *text, sink put, void *to)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        /* Runs of plain ASCII at once. */
        const unsigned char *run = s;
        while (*run >= 0x20 && *run < 0x80 && *run != '"' && *run != '\\')
            run++;
        if (run != s) {
            put(to, (const char *)s, (size_t)(run - s));
            s = run;
            continue;
        }
        size_t n = utf8_len(s);
        if (*s == '"' || *s == '\\') {
            char esc[2] = {'\\', (char)*s};
            put(to, esc, 2);
            n = 1;
        } else if (*s == '\n') {
            put(to, "\\n", 2), n = 1;
        } else if (*s == '\t') {
            put(to, "\\t", 2), n = 1;
        } else if (*s < 0x20 || n == 0) {
            char esc[6] = {'\\', 'u', '0', '0', hex[*s >> 4], hex[*s & 15]};
            put(to, esc, 6);
            n = 1;
        } else {
            put(to, (const char *)s, n);
        }
        s += n;
    }
}

struct growing {
    char *text;
    size_t len;
};

static void put_growing(void *to, const char *bytes, size_t len)
{
    struct growing *g = to;
    memcpy(g->text + g->len, bytes, len);
    g->len += len;
}

/* `before` + the escaped `text` + `after`, malloc'd, for pieces the flush copies as is;
 * {NULL, 0} when out of memory. Not for signal handlers. */
static struct piece make_piece(const char *before, const char *text, const char *after)
{
    size_t lb = strlen(before), la = strlen(after);
    struct growing g = {malloc(lb + 6 * strlen(text) + la + 1), 0};
    if (g.text == NULL)
        return (struct piece){NULL, 0};
    put_growing(&g, before, lb);
    json_escape(text, put_growing, &g);
    put_growing(&g, after, la);
    g.text[g.len] = '\0';
    return (struct piece){g.text, (uint32_t)g.len};
}

/* ---- interned strings (SystemC process and module names, time stamps) ---------------
 * The flush may run in a signal handler while another thread interns, so the strings
 * live in fixed chunks that never move; only the lookup hash (never read by the flush)
 * is reallocated, under the mutex. Each string is kept with its JSON literal, escaped
 * once here rather than at every event it names. */
#define STR_CHUNK 1024u
#define STR_CHUNKS 4096u /* 4M strings: more than 2 new strings per recorded event */
#define STR_NONE UINT32_MAX

struct interned {
    const char *text;
    struct piece json; /* "text", escaped */
};

static struct interned *str_chunks[STR_CHUNKS];
static _Atomic uint32_t str_count;
static uint32_t *str_hash; /* id+1, 0 = empty; open addressing */
static size_t str_hash_cap;
static pthread_mutex_t str_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *str_get(uint32_t id)
{
    if (id >= atomic_load_explicit(&str_count, memory_order_acquire))
        return "?";
    return str_chunks[id / STR_CHUNK][id % STR_CHUNK].text;
}

static struct piece str_json(uint32_t id)
{
    if (id >= atomic_load_explicit(&str_count, memory_order_acquire))
        return (struct piece){"\"?\"", 3};
    return str_chunks[id / STR_CHUNK][id % STR_CHUNK].json;
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
    struct interned *chunk = str_chunks[count / STR_CHUNK];
    if (chunk == NULL) {
        chunk = calloc(STR_CHUNK, sizeof *chunk);
        if (chunk == NULL)
            goto out;
        str_chunks[count / STR_CHUNK] = chunk;
    }
    char *copy = strdup(text);
    struct piece json = make_piece("\"", text, "\"");
    if (copy == NULL || json.text == NULL) {
        free(copy);
        free((char *)json.text);
        goto out;
    }
    chunk[count % STR_CHUNK] = (struct interned){copy, json};
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
    ev->cls = 0;
    snapshot(ev, NULL, 0);
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

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

static inline unsigned decimal_digits(uint64_t v)
{
    unsigned n = 1;
    while (v >= 100) {
        v /= 100;
        n += 2;
    }
    return n + (v >= 10);
}

/* A number in decimal, written in place (two digits per division): the flush prints
 * three numbers an event, and a copy through a stack buffer doubled their cost (perf). */
static inline void out_u64(uint64_t v)
{
    if (sizeof out.buf - out.used < 20)
        out_flush();
    unsigned n = decimal_digits(v);
    char *end = out.buf + out.used + n;
    out.used += n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        *--end = digit_pairs[2 * r + 1];
        *--end = digit_pairs[2 * r];
    }
    if (v >= 10) {
        *--end = digit_pairs[2 * v + 1];
        *--end = digit_pairs[2 * v];
    } else {
        *--end = (char)('0' + v);
    }
}

/* The decimal text of the last number printed in one column (seq, delta, a state
 * value): consecutive events mostly repeat it or add one, and formatting a number from
 * scratch cost ~100 instructions (callgrind), most of the flush. */
struct number_text {
    uint64_t value; /* the magnitude */
    bool negative;
    uint8_t len; /* 0: nothing cached */
    char text[23];
};

/* `v` in decimal (with a leading '-' when `negative`: the magnitude is `v`), through
 * `cache`. */
static inline void out_number(struct number_text *cache, uint64_t v, bool negative)
{
    if (cache->len != 0 && cache->value == v && cache->negative == negative) {
        out_bytes(cache->text, cache->len);
        return;
    }
    if (cache->len != 0 && !negative && !cache->negative && cache->value + 1 == v) {
        /* Increment the text in place; a carry out of the first digit reformats. */
        int i = cache->len - 1;
        while (i >= 0 && cache->text[i] == '9')
            cache->text[i--] = '0';
        if (i >= 0) {
            cache->text[i]++;
            cache->value = v;
            out_bytes(cache->text, cache->len);
            return;
        }
    }
    unsigned n = decimal_digits(v) + (negative ? 1 : 0);
    char *end = cache->text + n;
    uint64_t rest = v;
    while (rest >= 100) {
        unsigned r = (unsigned)(rest % 100);
        rest /= 100;
        *--end = digit_pairs[2 * r + 1];
        *--end = digit_pairs[2 * r];
    }
    if (rest >= 10) {
        *--end = digit_pairs[2 * rest + 1];
        *--end = digit_pairs[2 * rest];
    } else {
        *--end = (char)('0' + rest);
    }
    if (negative)
        cache->text[0] = '-';
    cache->value = v;
    cache->negative = negative;
    cache->len = (uint8_t)n;
    out_bytes(cache->text, n);
}

/* Per-column caches; static, as the flush may run on a small signal stack. */
static struct number_text seq_text, delta_text, value_text[MAX_GLOBALS + MAX_MEMBERS];

static void put_out(void *to, const char *bytes, size_t len)
{
    (void)to;
    out_bytes(bytes, len);
}

/* A JSON string literal (rare pieces: the header, the end record). */
static void out_json(const char *text)
{
    out_bytes("\"", 1);
    json_escape(text, put_out, NULL);
    out_bytes("\"", 1);
}

static inline void out_piece(struct piece p)
{
    out_bytes(p.text, p.len);
}

/* One recorded value, printed by its field's kind; `names`: the enumerators' JSON
 * literals (may be NULL: out of memory at start-up). */
static void out_value(const struct syncmut_field *f, const struct piece *names, uint64_t v,
                      struct number_text *cache)
{
    uint32_t size = f->size >= 1 && f->size <= 8 ? f->size : 8u;
    switch (f->kind) {
    case FIELD_BOOL:
        if (v != 0)
            OUT_LIT("true");
        else
            OUT_LIT("false");
        return;
    case FIELD_POINTER:
        if (v != 0)
            OUT_LIT("\"non-null\"");
        else
            OUT_LIT("\"null\"");
        return;
    case FIELD_RAW: {
        static const char hex[] = "0123456789abcdef";
        char text[20] = {'"', '0', 'x'};
        size_t n = 3;
        for (uint32_t i = 0; i < size; i++) { /* memory order (little-endian targets) */
            unsigned byte = (unsigned)(v >> (8 * i)) & 0xffu;
            text[n++] = hex[byte >> 4];
            text[n++] = hex[byte & 15];
        }
        text[n++] = '"';
        out_bytes(text, n);
        return;
    }
    case FIELD_ENUM:
    case FIELD_UENUM:
        for (uint32_t i = 0; i < f->nenums; i++) {
            if (f->enums[i].value == v) {
                if (names != NULL && names[i].text != NULL)
                    out_piece(names[i]);
                else
                    out_json(f->enums[i].name != NULL ? f->enums[i].name : "?");
                return;
            }
        }
        if (f->kind == FIELD_UENUM) {
            out_number(cache, v, false);
            return;
        }
        break; /* a value without a name: as a signed number */
    case FIELD_UNSIGNED:
        out_number(cache, v, false);
        return;
    default:
        break;
    }
    /* Sign-extend from the value's width. */
    unsigned shift = 64u - 8u * size;
    int64_t sv = (int64_t)(v << shift) >> shift;
    if (sv < 0)
        out_number(cache, (uint64_t)0 - (uint64_t)sv, true);
    else
        out_number(cache, (uint64_t)sv, false);
}

/* ,"state":{"name":value,...,"module.member":value,...} for event `seq`: the globals,
 * then the members of the module whose process recorded it; nothing if neither. */
static void out_state(uint64_t seq, const struct event *ev)
{
    uint32_t cls = ev->cls;
    if (nglobals == 0 && cls == 0)
        return;
    const uint64_t *values = &states[seq * width];
    OUT_LIT(",\"state\":{");
    for (uint32_t i = 0; i < nglobals; i++) {
        const struct syncmut_field *g = &syncmut_globals[i];
        if (i > 0)
            out_bytes(",", 1);
        if (global_keys[i].text != NULL) {
            out_piece(global_keys[i]);
        } else {
            out_json(g->name != NULL ? g->name : "?");
            out_bytes(":", 1);
        }
        out_value(g, global_enum_names[i], values[i], &value_text[i]);
    }
    if (cls != 0) {
        const struct syncmut_class *c = &syncmut_classes[cls - 1];
        uint32_t n = c->nfields < MAX_MEMBERS ? (uint32_t)c->nfields : MAX_MEMBERS;
        struct piece module = str_json(ev->module); /* "top.prod" */
        for (uint32_t i = 0; i < n; i++) {
            const struct syncmut_field *m = &c->fields[i];
            if (nglobals > 0 || i > 0)
                out_bytes(",", 1);
            out_bytes(module.text, module.len - 1); /* without the closing quote */
            if (member_keys[cls - 1] != NULL && member_keys[cls - 1][i].text != NULL) {
                out_piece(member_keys[cls - 1][i]); /* .count": */
            } else {
                out_bytes(".", 1);
                json_escape(m->name != NULL ? m->name : "?", put_out, NULL);
                out_bytes("\":", 2);
            }
            out_value(m, member_enum_names[cls - 1] != NULL ? member_enum_names[cls - 1][i] : NULL,
                      values[nglobals + i], &value_text[nglobals + i]);
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
        out_number(&seq_text, seq, false);
        OUT_LIT(",\"site\":");
        out_u64(ev->site);
        OUT_LIT(",\"action\":");
        if (ev->action < SYNCMUT_OP_COUNT && op_json[ev->action].text != NULL)
            out_piece(op_json[ev->action]);
        else
            out_json(syncmut_op_slug((syncmut_op)ev->action));
        OUT_LIT(",\"thread\":");
        if (ev->kind == KIND_PTHREAD) {
            OUT_LIT("\"T");
            out_u64(ev->thread);
            OUT_LIT("\"");
        } else {
            out_piece(str_json(ev->thread));
            OUT_LIT(",\"time\":");
            out_piece(str_json(ev->time));
            OUT_LIT(",\"delta\":");
            out_number(&delta_text, ev->delta, false);
            if (ev->flags & SYNCMUT_EVENT_LOST)
                OUT_LIT(",\"lost\":true");
        }
        out_state(seq, ev);
        OUT_LIT("}\n");
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

/* A buffer of `size` bytes, reserved but not backed until touched (MAP_FAILED on error).
 * Huge pages where the kernel offers them on request: filling the buffers page by page
 * took one fault every 170 events (perf: 15% of a traced SystemC run). */
static void *arena(size_t size)
{
    /* Reserve 2 MiB more and start at a 2 MiB boundary, so the first events (most runs
     * record only a few thousand) already sit in a huge page. */
    const size_t huge = (size_t)2 << 20;
    char *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return MAP_FAILED;
    char *start = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
    madvise(start, size, MADV_HUGEPAGE);
#endif
    return start;
}

/* The JSON pieces of the state tables, the number of classes and the snapshot width. */
static struct piece *enum_pieces(const struct syncmut_field *f)
{
    if ((f->kind != FIELD_ENUM && f->kind != FIELD_UENUM) || f->nenums == 0 || f->enums == NULL)
        return NULL;
    struct piece *names = calloc(f->nenums, sizeof *names);
    for (uint32_t i = 0; names != NULL && i < f->nenums; i++)
        names[i] = make_piece("\"", f->enums[i].name != NULL ? f->enums[i].name : "?", "\"");
    return names;
}

static void prepare_state_tables(void)
{
    for (int op = 0; op < SYNCMUT_OP_COUNT; op++)
        op_json[op] = make_piece("\"", syncmut_op_slug((syncmut_op)op), "\"");
    if (&syncmut_global_count != NULL && syncmut_globals != NULL)
        nglobals = syncmut_global_count < MAX_GLOBALS ? syncmut_global_count : MAX_GLOBALS;
    for (uint32_t i = 0; i < nglobals; i++) {
        const char *name = syncmut_globals[i].name;
        global_keys[i] = make_piece("\"", name != NULL ? name : "?", "\":");
        global_enum_names[i] = enum_pieces(&syncmut_globals[i]);
    }
    uint32_t most = 0;
    if (&syncmut_class_count != NULL && syncmut_classes != NULL)
        nclasses = syncmut_class_count < UINT16_MAX ? syncmut_class_count : UINT16_MAX;
    member_keys = calloc(nclasses ? nclasses : 1, sizeof *member_keys);
    member_enum_names = calloc(nclasses ? nclasses : 1, sizeof *member_enum_names);
    if (member_keys == NULL || member_enum_names == NULL)
        nclasses = 0;
    for (uint32_t c = 0; c < nclasses; c++) {
        const struct syncmut_class *cls = &syncmut_classes[c];
        uint32_t n = cls->nfields < MAX_MEMBERS ? (uint32_t)cls->nfields : MAX_MEMBERS;
        most = n > most ? n : most;
        member_keys[c] = calloc(n ? n : 1, sizeof **member_keys);
        member_enum_names[c] = calloc(n ? n : 1, sizeof **member_enum_names);
        for (uint32_t i = 0; i < n; i++) {
            const char *name = cls->fields[i].name;
            if (member_keys[c] != NULL)
                member_keys[c][i] = make_piece(".", name != NULL ? name : "?", "\":");
            if (member_enum_names[c] != NULL)
                member_enum_names[c][i] = enum_pieces(&cls->fields[i]);
        }
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
