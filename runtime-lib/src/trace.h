/* Execution trace (SYNCMUT_TRACE): one event per wrapper call, kept in memory and written
 * as JSON Lines at exit or on a fatal signal. Internal to the runtime. */
#ifndef SYNCMUT_TRACE_H
#define SYNCMUT_TRACE_H

#include <stdint.h>

#include "activation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called once by the runtime's initialisation with SYNCMUT_TRACE and SYNCMUT_ACTIVE
 * (either may be NULL). Does nothing unless `path` is non-empty. */
void syncmut_trace_init(const char *path, const char *active);

/* Nonzero when events are being recorded. */
int syncmut_trace_on(void);

/* Records a pthread event; the calling thread is named T<k>. */
void syncmut_trace_pthread(uint32_t site, syncmut_op action);

/* Returns a stable id for a string (process names, time stamps); the text is copied. */
uint32_t syncmut_trace_intern(const char *text);

/* Records a SystemC event; `process` and `time` are ids from syncmut_trace_intern. */
void syncmut_trace_systemc(uint32_t site, syncmut_op action, uint32_t process,
                           uint32_t time, uint64_t delta);

#ifdef __cplusplus
}
#endif

#endif
