/* Which mutant is active (SYNCMUT_ACTIVE) and which operator each site applies.
 * Internal to the runtime; shared by the C and the C++ archive. */
#ifndef SYNCMUT_ACTIVATION_H
#define SYNCMUT_ACTIVATION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mutation operators, numbered from 1 in the order of syncmut_operators.def, which the
 * mutator's Rust `Operator` is generated from too. The two sides agree on slugs (text);
 * the one number that crosses is the operator in the copy table of placed copies
 * (syncmut_tables.h), which the mutator's `Operator::number` gives from the same list. */
typedef enum syncmut_op {
    SYNCMUT_ORIGINAL = 0, /* no mutation: perform the original call */
#define SYNCMUT_OPERATOR(variant, c_name, slug, doc, description) SYNCMUT_##c_name,
#include "syncmut_operators.def"
#undef SYNCMUT_OPERATOR
    SYNCMUT_OP_COUNT
} syncmut_op;

/* A set of operators, as a bit mask; each wrapper states the set it implements. */
#define SYNCMUT_OPS(op) (UINT32_C(1) << (SYNCMUT_##op))

/* Operators that move a call to where the mutator placed a copy (SYNCMUT_SITE_COPY): under
 * them the original call is absent, with no event and no scheduling point, as the copy
 * stands for it. */
#define SYNCMUT_MOVES_CALL                                                                   \
    (SYNCMUT_OPS(SWAP_LOCK_ORDER) | SYNCMUT_OPS(SHRINK_CRITICAL_SECTION) |                   \
     SYNCMUT_OPS(WIDEN_CRITICAL_SECTION))

/* One "syncmut runtime: ..." line on stderr in a single write, then _exit(120) without
 * running atexit handlers or destructors (the design must not continue, nor flush
 * half-done output). For configuration the runtime cannot honour. */
void syncmut_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Whether the mutator rewrote this program (it emitted the site table): its
 * synchronization calls then reach the runtime's wrappers. The uninstrumented build
 * links the runtime too, for the virtual clock and the inputs, but its calls do not. */
int syncmut_instrumented(void);

/* "original" for SYNCMUT_ORIGINAL, else the operator's slug. */
const char *syncmut_op_slug(syncmut_op op);

/* syncmut_op_for when a mutant is active (the inline part answers when none is). */
syncmut_op syncmut_op_for_active_mutant(uint32_t site, uint32_t allowed, const char *wrapper);

/* Nonzero once the start-up found no active mutant (SYNCMUT_ACTIVE unset or empty):
 * every site then runs the original. Written before the design's code runs. */
extern int syncmut_no_mutant;

/* The operator to apply at `site`: SYNCMUT_ORIGINAL unless the active mutant names this
 * site. If it names the site with an operator outside `allowed`, prints a message naming
 * `wrapper` and exits with status 120 (a catalogue/runtime mismatch must not pass as a
 * live mutant). Thread-safe; initialises the runtime on first use. */
static inline syncmut_op syncmut_op_for(uint32_t site, uint32_t allowed, const char *wrapper)
{
    /* Relaxed: a thread racing the start-up reads 0 and takes the checked path. */
    if (__atomic_load_n(&syncmut_no_mutant, __ATOMIC_RELAXED))
        return SYNCMUT_ORIGINAL;
    return syncmut_op_for_active_mutant(site, allowed, wrapper);
}

/* The operator the active mutant assigns to `site` (SYNCMUT_ORIGINAL if none), unchecked:
 * for copies of a call, which act under their site's operator whatever their wrapper. */
syncmut_op syncmut_op_active(uint32_t site);

/* For a placed copy of a call (SYNCMUT_SITE_COPY): whether the mutant of copy-table entry
 * `copy` is active; if so, stores the site the event is recorded at and the operator.
 * Exits with status 120 for an entry outside the table. */
int syncmut_copy_active(uint32_t copy, uint32_t *site, syncmut_op *op);

/* Whether the call at `site` does not happen in this run: a placed copy whose mutant is
 * not active, or a site whose active operator moved the call to its copy. A wrapper that
 * keeps state beside the call (a C++ lock guard's mutex and ownership) leaves it alone
 * then, so the copy's state stands. */
int syncmut_call_absent(uint32_t site);

/* For the trampolines the mutator generates around template APIs (sc_fifo<T>): `ops` is
 * the comma-separated list of slugs the site offers. Returns 0 when the site runs the
 * original, else the active operator's 1-based position in `ops`, and stores the
 * operator in *op. Exits with status 120 if the active operator is not in the list. */
int syncmut_op_position(uint32_t site, const char *ops, syncmut_op *op);

#ifdef __cplusplus
}
#endif

#endif
