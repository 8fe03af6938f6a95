/* Large buffers the runtime fills as a run goes on (the trace's chunks, the recorded
 * schedule): reserved whole at start-up, backed only where touched. Internal to the
 * runtime. */
#ifndef SYNCMUT_ARENA_H
#define SYNCMUT_ARENA_H

#include <stddef.h>

/* A buffer of `size` bytes, reserved but not backed until touched (NULL on error).
 * Its first 2 MiB in ordinary pages, the rest in huge pages where the kernel offers them
 * on request: filling a long trace page by page took one fault every 170 events (perf:
 * 15% of a traced SystemC run), but a huge page is zeroed whole at its first touch, and
 * for the short runs of a schedule search (a few hundred events) zeroing the first
 * huge page was the largest cost of a run (perf: 15% of a served search). */
void *syncmut_arena(size_t size);

/* About to fill bytes [offset, offset + len) of `arena`: where they lie in its ordinary
 * pages, backs them now in one call instead of one fault a page (a traced run of a few
 * thousand events took a fault every 500 of them). Best effort: a kernel without
 * MADV_POPULATE_WRITE (before Linux 5.14) faults them in as they are touched. */
void syncmut_arena_prefault(void *arena, size_t offset, size_t len);

#endif
