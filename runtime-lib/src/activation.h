/* Which mutant is active (SYNCMUT_ACTIVE) and which operator each site applies.
 * Internal to the runtime; shared by the C and the C++ archive. */
#ifndef SYNCMUT_ACTIVATION_H
#define SYNCMUT_ACTIVATION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mutation operators, numbered from 1 in the order of syncmut_operators.def, which the
 * mutator's Rust `Operator` is generated from too. The two sides still agree on slugs
 * (text), not on these numbers: the numbers only index masks and tables here. */
typedef enum syncmut_op {
    SYNCMUT_ORIGINAL = 0, /* no mutation: perform the original call */
#define SYNCMUT_OPERATOR(variant, c_name, slug, doc, description) SYNCMUT_##c_name,
#include "syncmut_operators.def"
#undef SYNCMUT_OPERATOR
    SYNCMUT_OP_COUNT
} syncmut_op;

/* A set of operators, as a bit mask; each wrapper states the set it implements. */
#define SYNCMUT_OPS(op) (UINT32_C(1) << (SYNCMUT_##op))

/* One "syncmut runtime: ..." line on stderr in a single write, then _exit(120) without
 * running atexit handlers or destructors (the design must not continue, nor flush
 * half-done output). For configuration the runtime cannot honour. */
void syncmut_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* "original" for SYNCMUT_ORIGINAL, else the operator's slug. */
const char *syncmut_op_slug(syncmut_op op);

/* The operator to apply at `site`: SYNCMUT_ORIGINAL unless the active mutant names this
 * site. If it names the site with an operator outside `allowed`, prints a message naming
 * `wrapper` and exits with status 120 (a catalogue/runtime mismatch must not pass as a
 * live mutant). Thread-safe; initialises the runtime on first use. */
syncmut_op syncmut_op_for(uint32_t site, uint32_t allowed, const char *wrapper);

/* For the trampolines the mutator generates around template APIs (sc_fifo<T>): `ops` is
 * the comma-separated list of slugs the site offers. Returns 0 when the site runs the
 * original, else the active operator's 1-based position in `ops`, and stores the
 * operator in *op. Exits with status 120 if the active operator is not in the list. */
int syncmut_op_position(uint32_t site, const char *ops, syncmut_op *op);

#ifdef __cplusplus
}
#endif

#endif
