/* syncmut runtime library: public header for designs under test.
 *
 * A design needs no header to be mutated: the mutator rewrites its synchronization calls
 * into calls of the runtime's wrappers, and the runtime is configured by the environment
 * (SYNCMUT_ACTIVE, SYNCMUT_TRACE; see runtime-lib/README.md). This header will declare
 * the API a design may call explicitly (named test inputs); for now it only identifies
 * the runtime version. Valid C and C++. */
#ifndef SYNCMUT_H
#define SYNCMUT_H

/* Version of the runtime library interface: major * 10000 + minor * 100 + patch. */
#define SYNCMUT_RUNTIME_VERSION 100

/* Version of the trace file format written to SYNCMUT_TRACE ("syncmut_trace" key). */
#define SYNCMUT_TRACE_FORMAT 1

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SYNCMUT_H */
