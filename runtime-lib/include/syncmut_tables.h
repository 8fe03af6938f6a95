/* The tables the mutator emits into the metamutant and the runtime's state snapshots read
 * (trace.c): one entry per recorded value. This header is the one definition of their
 * layout; the mutator builds the same structs from `tables` in this crate's Rust code, and
 * a unit test compiles this header and checks every size and offset against it.
 * Internal to syncmut: not installed with `syncmut.h`. */
#ifndef SYNCMUT_TABLES_H
#define SYNCMUT_TABLES_H

#include <stdint.h>

/* An enumerator of an enum-typed value. */
struct syncmut_enumerator {
    uint64_t value; /* the type's raw bits, zero-extended */
    const char *name;
};

/* One recorded value: `size` bytes at `where` (a global's address, or a member's byte
 * offset in its module object), printed by `kind`. */
struct syncmut_field {
    const char *name;
    uint64_t where;
    const struct syncmut_enumerator *enums;
    uint32_t size; /* 1, 2, 4 or 8 */
    uint32_t kind; /* SYNCMUT_FIELD_* */
    uint32_t nenums;
};

/* A SystemC module class and the data members recorded for its objects. */
struct syncmut_class {
    const char *type_name; /* typeid(object).name() */
    const struct syncmut_field *fields;
    uint64_t nfields;
};

/* The globals a pthread start routine can read: bit i of `reads` stands for entry i of
 * `syncmut_globals`, set when code reachable from the routine (`routine`, the name the
 * thread hooks pass, "main" for the main thread) loads that global or when its address
 * escapes. `const struct syncmut_thread_reads syncmut_thread_reads[]` with
 * `syncmut_thread_read_count` entries lists only routines that cannot read every global;
 * a thread not listed sees them all. */
struct syncmut_thread_reads {
    const char *routine;
    uint64_t reads;
};

/* At most this many globals and members of one class are recorded; the mutator emits no
 * more (with a warning). */
#define SYNCMUT_MAX_GLOBALS 64
#define SYNCMUT_MAX_MEMBERS 32

/* The copy table, `const uint32_t syncmut_copies[]` with `syncmut_copy_count` entries of
 * this many values: the number of the operator of the mutant a placed copy of a call
 * belongs to (its 1-based position in syncmut_operators.def), then the two sites that
 * mutant is activated at (the same twice for a one-site mutant). A copy's site argument
 * is SYNCMUT_SITE_COPY | its entry's index. */
#define SYNCMUT_COPY_FIELDS 3

/* How a field is printed (`kind`). */
#define SYNCMUT_FIELD_SIGNED 0
#define SYNCMUT_FIELD_UNSIGNED 1
#define SYNCMUT_FIELD_BOOL 2
#define SYNCMUT_FIELD_POINTER 3 /* printed as "null"/"non-null" */
#define SYNCMUT_FIELD_ENUM 4    /* the enumerator's name; else signed */
#define SYNCMUT_FIELD_UENUM 5   /* the enumerator's name; else unsigned */
#define SYNCMUT_FIELD_RAW 6     /* "0x" and the bytes in memory order */

#endif
