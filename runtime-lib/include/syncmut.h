/* syncmut runtime library: public header for designs under test.
 *
 * A design needs no header to be mutated: the mutator rewrites its synchronization calls
 * into calls of the runtime's wrappers, and the runtime is configured by the environment
 * (SYNCMUT_ACTIVE, SYNCMUT_TRACE; see runtime-lib/README.md). This header declares the
 * inputs a design may read explicitly (docs/inputs.md): named inputs and the SV-COMP
 * __VERIFIER_nondet_<type>() functions, whose values come from the test being run.
 * syncmut puts it on the include path when it compiles a design. Valid C and C++. */
#ifndef SYNCMUT_H
#define SYNCMUT_H

/* Version of the runtime library interface: major * 10000 + minor * 100 + patch. */
#define SYNCMUT_RUNTIME_VERSION 100

/* Version of the trace file format written to SYNCMUT_TRACE ("syncmut_trace" key). */
#define SYNCMUT_TRACE_FORMAT 1

#ifdef __cplusplus
extern "C" {
#endif

/* A named integer input in [lo, hi]: the test's value for `name` (its "inputs" in the
 * test file; SYNCMUT_INPUTS=name=value,... at run time), else 0 clamped into the range.
 * Test generation treats each name as one symbol constrained to the range. */
int syncmut_input_int(const char *name, int lo, int hi);
/* A named boolean input: syncmut_input_int(name, 0, 1). */
int syncmut_input_bool(const char *name);

/* SV-COMP / Test-Comp nondeterministic values: the k-th call of the run returns the
 * test's k-th "nondet" value (SYNCMUT_NONDET=v0,v1,...), 0 past the end. */
#ifdef __cplusplus
bool __VERIFIER_nondet_bool(void);
#else
_Bool __VERIFIER_nondet_bool(void);
#endif
char __VERIFIER_nondet_char(void);
unsigned char __VERIFIER_nondet_uchar(void);
short __VERIFIER_nondet_short(void);
unsigned short __VERIFIER_nondet_ushort(void);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
unsigned int __VERIFIER_nondet_unsigned(void);
long __VERIFIER_nondet_long(void);
unsigned long __VERIFIER_nondet_ulong(void);
long long __VERIFIER_nondet_longlong(void);
unsigned long long __VERIFIER_nondet_ulonglong(void);
unsigned long __VERIFIER_nondet_size_t(void);
long __VERIFIER_nondet_loff_t(void);
unsigned long __VERIFIER_nondet_sector_t(void);
unsigned int __VERIFIER_nondet_u32(void);
unsigned short __VERIFIER_nondet_u16(void);
unsigned char __VERIFIER_nondet_u8(void);
unsigned long __VERIFIER_nondet_pthread_t(void);
/* Not integers: the integer value, converted as C converts it. */
float __VERIFIER_nondet_float(void);
double __VERIFIER_nondet_double(void);
void *__VERIFIER_nondet_pointer(void);
char *__VERIFIER_nondet_pchar(void);
char *__VERIFIER_nondet_charp(void);
__int128 __VERIFIER_nondet_int128(void);
unsigned __int128 __VERIFIER_nondet_uint128(void);
/* SV-COMP assumption and atomic sections (runtime-lib/src/verifier.c): a false
 * assumption ends the run with status 123; test generation treats it as a path
 * condition, so generated tests satisfy it. */
void __VERIFIER_assume(int cond);
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

#ifdef __cplusplus
}
#endif

#endif /* SYNCMUT_H */
