/* Test inputs supplied by the runtime (docs/inputs.md):
 *
 * - the SV-COMP/Test-Comp convention __VERIFIER_nondet_<type>(): the k-th call in the
 *   run (in call order, whichever thread makes it) returns the k-th value of
 *   SYNCMUT_NONDET (comma-separated decimal integers), converted to the function's
 *   type as C converts an integer; calls beyond the list return 0, or, with
 *   SYNCMUT_NONDET_SEED=<n>, a value drawn for the call's position and type from the
 *   seeded stream (below);
 * - named inputs, syncmut_input_int("depth", lo, hi): the value given for the name in
 *   SYNCMUT_INPUTS (`name=value,...`), else 0 clamped into [lo, hi] (with a seed: a
 *   value drawn in [lo, hi] for the name); a given value outside [lo, hi] ends the run
 *   with status 120;
 * - SYNCMUT_INPUT_LOG=<path>: every value handed out is appended as one line
 *   (`nondet <type> <value>` / `input <name> <value>`), written as it happens so a run
 *   that ends in a deadlock or a crash still leaves its log.
 *
 * (__VERIFIER_assume and the atomic sections are in verifier.c.)
 *
 * This file is self-contained on purpose: the uninstrumented `original` build links the
 * runtime archive too, and only this member must be pulled in (no activation, trace or
 * scheduler constructors in the original). */
#define _GNU_SOURCE
#include "syncmut.h"
#include "syncmut_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t *nondet_values;
static size_t nondet_count;
static atomic_size_t nondet_next;
static int seeded; /* SYNCMUT_NONDET_SEED given */
static uint64_t seed;

struct named {
    char *name;
    long long value;
};
static struct named *named_values;
static size_t named_count;

static int log_fd = -1;

static void inputs_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void inputs_fatal(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    dprintf(2, "syncmut runtime: %.*s\n", n, buf);
    _exit(SYNCMUT_STATUS_CONFIG_ERROR);
}

/* One decimal integer (optional sign) spanning [s, end); its two's-complement bits. */
static int parse_integer(const char *s, const char *end, uint64_t *out) {
    if (s == end) return 0;
    char text[32];
    size_t len = (size_t)(end - s);
    if (len >= sizeof text) return 0;
    memcpy(text, s, len);
    text[len] = '\0';
    char *stop;
    errno = 0;
    if (text[0] == '-') {
        long long v = strtoll(text, &stop, 10);
        if (errno || *stop) return 0;
        *out = (uint64_t)v;
    } else {
        if (text[0] == '+' || (text[0] < '0' || text[0] > '9')) return 0;
        unsigned long long v = strtoull(text, &stop, 10);
        if (errno || *stop) return 0;
        *out = (uint64_t)v;
    }
    return 1;
}

static void parse_nondet(const char *text) {
    size_t cap = 1;
    for (const char *p = text; *p; p++) cap += *p == ',';
    nondet_values = calloc(cap, sizeof *nondet_values);
    if (!nondet_values) inputs_fatal("SYNCMUT_NONDET: out of memory");
    const char *s = text;
    for (;;) {
        const char *e = strchr(s, ',');
        if (!e) e = s + strlen(s);
        if (!parse_integer(s, e, &nondet_values[nondet_count]))
            inputs_fatal("SYNCMUT_NONDET: value %zu (\"%.*s\") is not a decimal integer; expected e.g. SYNCMUT_NONDET=5,-3,0",
                         nondet_count + 1, (int)(e - s), s);
        nondet_count++;
        if (!*e) break;
        s = e + 1;
    }
}

static void parse_named(const char *text) {
    size_t cap = 1;
    for (const char *p = text; *p; p++) cap += *p == ',';
    named_values = calloc(cap, sizeof *named_values);
    if (!named_values) inputs_fatal("SYNCMUT_INPUTS: out of memory");
    const char *s = text;
    for (;;) {
        const char *e = strchr(s, ',');
        if (!e) e = s + strlen(s);
        const char *eq = memchr(s, '=', (size_t)(e - s));
        uint64_t bits;
        if (!eq || eq == s || !parse_integer(eq + 1, e, &bits))
            inputs_fatal("SYNCMUT_INPUTS: \"%.*s\" is not name=integer; expected e.g. SYNCMUT_INPUTS=depth=3,mode=1", (int)(e - s), s);
        named_values[named_count].name = strndup(s, (size_t)(eq - s));
        named_values[named_count].value = (long long)bits;
        named_count++;
        if (!*e) break;
        s = e + 1;
    }
}

/* Before main (after the activation's and scheduler's constructors): the values are
 * read once, so threads calling the inputs never race on parsing. */
__attribute__((constructor(103))) static void inputs_init(void) {
    const char *nondet = getenv(SYNCMUT_ENV_NONDET);
    if (nondet && *nondet) parse_nondet(nondet);
    const char *s = getenv(SYNCMUT_ENV_NONDET_SEED);
    if (s && *s) {
        char *stop;
        errno = 0;
        seed = strtoull(s, &stop, 10);
        if (errno || *stop || *s < '0' || *s > '9')
            inputs_fatal("SYNCMUT_NONDET_SEED: \"%s\" is not a decimal number; expected e.g. SYNCMUT_NONDET_SEED=7", s);
        seeded = 1;
    }
    const char *named = getenv(SYNCMUT_ENV_INPUTS);
    if (named && *named) parse_named(named);
    const char *log = getenv(SYNCMUT_ENV_INPUT_LOG);
    if (log && *log) {
        log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        if (log_fd < 0) dprintf(2, "syncmut runtime: cannot create SYNCMUT_INPUT_LOG %s: %s\n", log, strerror(errno));
    }
}

static void log_line(const char *kind, const char *what, long long value, int is_unsigned) {
    if (log_fd < 0) return;
    char line[320];
    int n = is_unsigned ? snprintf(line, sizeof line, "%s %s %llu\n", kind, what, (unsigned long long)value)
                        : snprintf(line, sizeof line, "%s %s %lld\n", kind, what, value);
    if (n > 0 && (size_t)n < sizeof line) {
        ssize_t ignored = write(log_fd, line, (size_t)n);
        (void)ignored;
    }
}

/* The seeded stream: the value of draw `k` depends on the seed and k only, so a run's
 * values do not depend on which thread draws first, and a replay under the same choices
 * draws the same ones. */
static uint64_t mix(uint64_t k) /* splitmix64 of (seed, k) */
{
    uint64_t z = seed * 0x9E3779B97F4A7C15u + (k + 1) * 0xD1B54A32D192ED03u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The constants the design compares with (`x == 48611`), harvested by the mutator
 * into the metamutant (mutator/src/nondet_constants.rs). Weak: the original build and
 * hand-linked programs have none. */
extern const int64_t syncmut_nondet_constants[] __attribute__((weak));
extern const int64_t syncmut_nondet_constant_count __attribute__((weak));

static uint64_t constant_count(void) {
    if (!syncmut_nondet_constants || !&syncmut_nondet_constant_count || syncmut_nondet_constant_count <= 0) return 0;
    return (uint64_t)syncmut_nondet_constant_count;
}

/* A drawn value for a `bits`-wide integer: a quarter boundary values (0, 1, -1, the
 * type's min and max), half small ones (-16..16, where loop bounds usually are), a
 * quarter any bit pattern. When the program compares with constants, half the small
 * draws (a quarter of all) go to them instead: the constant itself three times in four, else its
 * neighbour above or below (the two sides of `<`, `<=`), so a guard on one specific
 * value is met within a few dozen draws. */
static uint64_t draw(uint64_t k, unsigned bits, int is_unsigned) {
    uint64_t r = mix(k);
    uint64_t pick = r & 3, rest = r >> 2;
    uint64_t constants = constant_count();
    if (pick == 1 && constants > 0) {
        uint64_t c = (uint64_t)syncmut_nondet_constants[rest % constants];
        switch ((rest / constants) & 7) {
        case 0: return c + 1;
        case 1: return c - 1;
        default: return c;
        }
    }
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t top = UINT64_C(1) << (bits - 1);
    if (pick == 0) {
        switch (rest % 5) {
        case 0: return 0;
        case 1: return 1;
        case 2: return UINT64_MAX; /* -1, or the unsigned max once converted */
        case 3: return is_unsigned ? 0 : (uint64_t)0 - top; /* min, sign-extended */
        default: return is_unsigned ? mask : top - 1;
        }
    }
    if (pick == 3) {
        uint64_t v = rest & mask;
        return !is_unsigned && (v & top) ? v | ~mask : v; /* sign-extended */
    }
    return (uint64_t)((int64_t)(rest % 33) - 16);
}

/* The next value in call order: the list's, else drawn (seeded) or 0. */
static uint64_t next_nondet(unsigned bits, int is_unsigned) {
    size_t k = atomic_fetch_add(&nondet_next, 1);
    if (k < nondet_count) return nondet_values[k];
    return seeded ? draw(k, bits, is_unsigned) : 0;
}

#define NONDET(type, suffix, is_unsigned)                          \
    type __VERIFIER_nondet_##suffix(void) {                        \
        type v = (type)next_nondet(8 * sizeof(type), is_unsigned); \
        log_line("nondet", #suffix, (long long)v, is_unsigned);    \
        return v;                                                  \
    }

NONDET(char, char, 0)
NONDET(unsigned char, uchar, 1)
NONDET(short, short, 0)
NONDET(unsigned short, ushort, 1)
NONDET(int, int, 0)
NONDET(unsigned int, uint, 1)
NONDET(unsigned int, unsigned, 1)
NONDET(long, long, 0)
NONDET(unsigned long, ulong, 1)
NONDET(long long, longlong, 0)
NONDET(unsigned long long, ulonglong, 1)
NONDET(unsigned long, size_t, 1)
NONDET(long, loff_t, 0)
NONDET(unsigned long, sector_t, 1)
NONDET(unsigned int, u32, 1)
NONDET(unsigned short, u16, 1)
NONDET(unsigned char, u8, 1)

NONDET(unsigned long, pthread_t, 1)

/* Types that are not integers: the value is the integer given or drawn (a 64-bit
 * signed one), converted as C converts it (to a floating type: the nearest value; to a
 * pointer: that address). The log keeps the integer, which replays the same value.
 * Pointers are for comparing (null or not, equal or not): dereferencing a drawn one is
 * as undefined as in any other tool that follows the convention. */
#define NONDET_FROM_INTEGER(type, suffix)                      \
    type __VERIFIER_nondet_##suffix(void) {                    \
        long long raw = (long long)next_nondet(64, 0);         \
        log_line("nondet", #suffix, raw, 0);                   \
        return (type)(intptr_t)raw;                            \
    }
#define NONDET_FLOATING(type, suffix)                          \
    type __VERIFIER_nondet_##suffix(void) {                    \
        long long raw = (long long)next_nondet(64, 0);         \
        log_line("nondet", #suffix, raw, 0);                   \
        return (type)raw;                                      \
    }

NONDET_FLOATING(float, float)
NONDET_FLOATING(double, double)
NONDET_FROM_INTEGER(void *, pointer)
NONDET_FROM_INTEGER(char *, pchar)
NONDET_FROM_INTEGER(char *, charp)

/* 128-bit integers: the 64-bit value given or drawn, sign- or zero-extended. */
__int128 __VERIFIER_nondet_int128(void) {
    long long raw = (long long)next_nondet(64, 0);
    log_line("nondet", "int128", raw, 0);
    return raw;
}

unsigned __int128 __VERIFIER_nondet_uint128(void) {
    unsigned long long raw = next_nondet(64, 1);
    log_line("nondet", "uint128", (long long)raw, 1);
    return raw;
}

_Bool __VERIFIER_nondet_bool(void) {
    _Bool v = next_nondet(1, 1) != 0;
    log_line("nondet", "bool", v, 0);
    return v;
}

int syncmut_input_int(const char *name, int lo, int hi) {
    if (!name) inputs_fatal("syncmut_input_int called with a null name");
    if (lo > hi) inputs_fatal("syncmut_input_int(\"%s\", %d, %d): empty range (lo > hi)", name, lo, hi);
    long long v = 0;
    int given = 0;
    for (size_t i = 0; i < named_count; i++) {
        if (strcmp(named_values[i].name, name) == 0) {
            v = named_values[i].value;
            given = 1;
        }
    }
    if (given && (v < lo || v > hi))
        inputs_fatal("input \"%s\" = %lld is outside its range [%d, %d] (SYNCMUT_INPUTS)", name, v, lo, hi);
    if (!given && seeded) {
        /* Drawn per name, not per call: every call for a name agrees, as with a given value. */
        uint64_t h = 1469598103934665603u; /* FNV-1a of the name */
        for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211u;
        uint64_t r = mix(h), span = (uint64_t)((long long)hi - lo) + 1;
        switch (r & 3) {
        case 0: v = lo; break;
        case 1: v = hi; break;
        default: v = lo + (long long)((r >> 2) % span); break;
        }
    } else if (!given) {
        v = 0 < lo ? lo : (0 > hi ? hi : 0);
    }
    log_line("input", name, v, 0);
    return (int)v;
}

int syncmut_input_bool(const char *name) {
    return syncmut_input_int(name, 0, 1);
}
