/* What trace.c (recording) and trace_file.c (writing the file) share. Internal to the
 * runtime.
 *
 * Events are encoded as they are recorded, each thread into a chunk of its own: a chunk
 * is TRACE_CHUNK bytes of one preallocated arena, claimed with one atomic increment, and
 * starts with the count of its bytes that hold whole records (published with a release
 * store after each record, so a flush from a signal handler never reads half a record).
 * The chunks go into the file as they are. */
#ifndef SYNCMUT_TRACE_INTERNAL_H
#define SYNCMUT_TRACE_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "syncmut_tables.h"

#define TRACE_CHUNK ((size_t)16 << 10)
#define TRACE_CHUNK_HEADER ((size_t)8) /* _Atomic uint32_t bytes used, then padding */

/* The design's site table and what a state snapshot records (emitted by the mutator,
 * layout in syncmut_tables.h; weak: absent in hand-linked tests): the design's own
 * global variables, and per SystemC module class the data members of its objects. */
extern const uint32_t syncmut_site_count __attribute__((weak));
extern const char *const syncmut_sites[] __attribute__((weak));
extern const uint32_t syncmut_global_count __attribute__((weak));
extern const struct syncmut_field syncmut_globals[] __attribute__((weak));
extern const uint32_t syncmut_class_count __attribute__((weak));
extern const struct syncmut_class syncmut_classes[] __attribute__((weak));
extern const uint32_t syncmut_thread_read_count __attribute__((weak));
extern const struct syncmut_thread_reads syncmut_thread_reads[] __attribute__((weak));

struct trace_shared {
    pid_t owner_pid;    /* a forked child must not write the parent's file */
    char *path;         /* absolute, so a chdir in the design does not move the file */
    char *active;       /* SYNCMUT_ACTIVE as given, for the header */
    uint32_t nglobals;  /* globals recorded (at most SYNCMUT_MAX_GLOBALS) */
    uint32_t nclasses;  /* classes with recorded members */
    unsigned char *chunks;         /* the arena: max_chunks chunks, mmap'd */
    uint32_t max_chunks;
    _Atomic uint32_t chunks_used;  /* claimed, may run past max_chunks */
    _Atomic uint64_t claimed;      /* seqs handed out, may run past the cap */
    atomic_bool truncated;         /* an event was dropped at the cap */
};

extern struct trace_shared trace_shared;

/* The members recorded for class `cls` (1-based; 0: none). */
static inline uint32_t trace_class_width(uint32_t cls)
{
    if (cls == 0)
        return 0;
    uint64_t n = syncmut_classes[cls - 1].nfields;
    return n < SYNCMUT_MAX_MEMBERS ? (uint32_t)n : SYNCMUT_MAX_MEMBERS;
}

/* A field's width in the file: its size, as the schema declares it. */
static inline uint32_t trace_field_size(const struct syncmut_field *f)
{
    return f->size >= 1 && f->size <= 8 ? f->size : 8u;
}

/* Reads `size` bytes (1, 2, 4, else 8) at p, as a snapshot does: volatile, since other
 * threads may be writing them (trace.c, put_snapshot()). */
static inline uint64_t trace_read_value(const void *p, uint32_t size)
{
    switch (size) {
    case 1: return *(const volatile uint8_t *)p;
    case 2: return *(const volatile uint16_t *)p;
    case 4: return *(const volatile uint32_t *)p;
    default: return *(const volatile uint64_t *)p;
    }
}

/* trace_file.c: writes the file at exit and on fatal signals from now on. */
void trace_file_install(void);

#endif
