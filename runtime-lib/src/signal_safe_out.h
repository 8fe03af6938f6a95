/* A small output file written where only async-signal-safe calls are allowed (a fatal
 * signal, a deadlock or livelock ending the run from the scheduler): one static buffer,
 * write(2) only. The schedule file and the race file are written this way. */
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

static inline void signal_safe_flush(struct signal_safe_out *out)
{
    size_t done = 0;
    while (done < out->used) {
        ssize_t w = write(out->fd, out->buf + done, out->used - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
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

static inline void signal_safe_u64(struct signal_safe_out *out, uint64_t v)
{
    char digits[24];
    size_t i = sizeof digits - 1;
    digits[i] = '\0';
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    signal_safe_str(out, digits + i);
}

#endif
