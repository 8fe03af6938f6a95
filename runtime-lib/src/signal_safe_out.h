/* A small output file written where only async-signal-safe calls are allowed (a fatal
 * signal, a deadlock or livelock ending the run from the scheduler): one static buffer,
 * write(2) only. The schedule file and the race file are written this way; the trace file
 * writes its bytes with signal_safe_write_all. */
#ifndef SYNCMUT_SIGNAL_SAFE_OUT_H
#define SYNCMUT_SIGNAL_SAFE_OUT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

struct signal_safe_out {
    int fd;
    size_t used;
    size_t size;
    char *buf;
};

/* Writes all `len` bytes to `fd` with write(2), again after an interruption; -1 when a
 * write fails or writes nothing (the rest is then not written), else 0. */
static inline int signal_safe_write_all(int fd, const void *bytes, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, (const char *)bytes + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

static inline void signal_safe_flush(struct signal_safe_out *out)
{
    (void)signal_safe_write_all(out->fd, out->buf, out->used);
    out->used = 0;
}

static inline void signal_safe_str(struct signal_safe_out *out, const char *s)
{
    for (; *s; s++) {
        if (out->used == out->size)
            signal_safe_flush(out);
        out->buf[out->used++] = *s;
    }
}

/* Writing straight into the buffer, for a caller that writes much: `signal_safe_room`
 * makes room for `n` bytes and returns where they go, the `put` functions write there and
 * return the end, and the caller sets `used` to it. A long run's schedule file is
 * megabytes, and appending it a byte at a time, each byte checked for room, was a
 * quarter of such a run (perf). */
static inline char *signal_safe_room(struct signal_safe_out *out, size_t n)
{
    if (out->size - out->used < n)
        signal_safe_flush(out);
    return out->buf + out->used;
}

static inline char *signal_safe_put_text(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

/* At most 20 bytes. */
static inline char *signal_safe_put_decimal(char *p, uint64_t v)
{
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

static inline void signal_safe_u64(struct signal_safe_out *out, uint64_t v)
{
    char *p = signal_safe_room(out, 20);
    out->used = (size_t)(signal_safe_put_decimal(p, v) - out->buf);
}

#endif
