/* Large buffers the runtime fills as a run goes on (arena.h). */
#define _GNU_SOURCE
#include "arena.h"

#include <stdint.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static const size_t huge = (size_t)2 << 20;

void *syncmut_arena(size_t size)
{
    /* Reserve 2 MiB more, so the huge pages past the first 2 MiB start at a boundary. */
    char *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *start = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
    if (size > huge)
        madvise(start + huge, size - huge, MADV_HUGEPAGE);
#endif
    return start;
}

void syncmut_arena_prefault(void *arena, size_t offset, size_t len)
{
    if (offset + len <= huge)
        madvise((char *)arena + offset, len, MADV_POPULATE_WRITE);
}
