/* Writes the trace file (trace.c records it): once, at exit, or from the handler of a
 * fatal signal, with only async-signal-safe calls (open, write, close). The records are
 * already encoded in their chunks; this writes the preamble that names their numbers,
 * the chunks as they are, and the end record. Also the end of a run the runtime itself
 * ends (syncmut_trace_finish). Internal to the runtime. */
#define _GNU_SOURCE
#include "trace.h"
#include "syncmut_protocol.h"
#include "trace_internal.h"
#include "signal_safe_out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define STR_NONE UINT32_MAX

static atomic_int flushed;

struct out {
    int fd;
    bool failed;
    size_t used;
    char buf[1 << 16];
};

static struct out out; /* static: the flush may run on a small signal stack */

/* Writes `len` bytes to the file, unbuffered; a failure is remembered in `out.failed`. */
static void out_write(const void *bytes, size_t len)
{
    if (!out.failed && signal_safe_write_all(out.fd, bytes, len) != 0)
        out.failed = true;
}

static void out_flush(void)
{
    out_write(out.buf, out.used);
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

/* One field of the state schema: how the oracle decodes and names its values. */
static void out_field(const struct syncmut_field *f)
{
    out_text(f->name != NULL ? f->name : "?");
    out_u8((uint8_t)f->kind);
    out_u8((uint8_t)trace_field_size(f));
    uint32_t nenums = f->enums != NULL ? f->nenums : 0;
    out_u32(nenums);
    for (uint32_t i = 0; i < nenums; i++) {
        out_u64(f->enums[i].value);
        out_text(f->enums[i].name != NULL ? f->enums[i].name : "?");
    }
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
    out_text(trace_shared.active);
    out_u32(SYNCMUT_OP_COUNT);
    for (int op = 0; op < SYNCMUT_OP_COUNT; op++)
        out_text(syncmut_op_slug((syncmut_op)op));
    out_u32(trace_shared.nglobals);
    for (uint32_t i = 0; i < trace_shared.nglobals; i++)
        out_field(&syncmut_globals[i]);
    out_u32(trace_shared.nclasses);
    for (uint32_t c = 0; c < trace_shared.nclasses; c++) {
        uint32_t n = trace_class_width(c + 1);
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

/* Every chunk's whole records, in the order the chunks were claimed: 'K', the byte
 * count, the bytes as they are in memory. */
static void out_chunks(void)
{
    uint32_t n = atomic_load_explicit(&trace_shared.chunks_used, memory_order_relaxed);
    if (n > trace_shared.max_chunks)
        n = trace_shared.max_chunks;
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *chunk = trace_shared.chunks + (size_t)i * TRACE_CHUNK;
        uint32_t used = atomic_load_explicit((_Atomic uint32_t *)(void *)chunk, memory_order_acquire);
        if (used == 0)
            continue;
        out_u8(SYNCMUT_TRACE_TAG_CHUNK);
        out_u32(used);
        out_flush(); /* the chunk goes straight from memory, after what is buffered */
        out_write(chunk + TRACE_CHUNK_HEADER, used);
    }
}

static void trace_flush(const struct ending *how)
{
    if (!syncmut_tracing || getpid() != trace_shared.owner_pid || atomic_exchange(&flushed, 1) != 0)
        return;
    int fd;
    do
        fd = open(trace_shared.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        say("syncmut runtime: cannot create trace file ", trace_shared.path, "\n");
        return;
    }
    out.fd = fd;
    out.failed = false;
    out.used = 0;
    out_preamble();
    out_chunks();
    if (atomic_load_explicit(&trace_shared.truncated, memory_order_relaxed))
        out_u8(SYNCMUT_TRACE_TAG_TRUNCATED);
    out_end(how);
    out_flush();
    if (out.failed)
        say("syncmut runtime: error writing trace file ", trace_shared.path, "\n");
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


void trace_file_install(void)
{
    atexit(flush_at_exit);
    install_signal_handlers();
}
