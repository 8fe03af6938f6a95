/* Interned strings of the trace (SystemC process and module names, time stamps): each
 * distinct text gets a stable id, and the flush writes the table of them.
 *
 * The flush may run in a signal handler while another thread interns, so the strings
 * live in fixed chunks that never move; only the lookup hash (never read by the flush)
 * is reallocated, under the mutex. */
#define _GNU_SOURCE
#include "trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define STR_NONE UINT32_MAX
#define STR_CHUNK 1024u
#define STR_CHUNKS 4096u /* 4M strings: more than 2 new strings per recorded event */

struct interned {
    const char *text;
};

static struct interned *str_chunks[STR_CHUNKS];
static _Atomic uint32_t str_count;
static uint32_t *str_hash; /* id+1, 0 = empty; open addressing */
static size_t str_hash_cap;
static pthread_mutex_t str_lock = PTHREAD_MUTEX_INITIALIZER;

const char *syncmut_trace_string(uint32_t id)
{
    if (id >= atomic_load_explicit(&str_count, memory_order_acquire))
        return "?";
    return str_chunks[id / STR_CHUNK][id % STR_CHUNK].text;
}

static uint64_t str_hash_of(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static bool str_hash_grow(void)
{
    size_t cap = str_hash_cap ? str_hash_cap * 2 : 256;
    uint32_t *table = calloc(cap, sizeof *table);
    if (table == NULL)
        return false;
    uint32_t count = atomic_load_explicit(&str_count, memory_order_relaxed);
    for (uint32_t id = 0; id < count; id++) {
        size_t i = (size_t)str_hash_of(syncmut_trace_string(id)) & (cap - 1);
        while (table[i] != 0)
            i = (i + 1) & (cap - 1);
        table[i] = id + 1;
    }
    free(str_hash);
    str_hash = table;
    str_hash_cap = cap;
    return true;
}

uint32_t syncmut_trace_intern(const char *text)
{
    uint32_t result = STR_NONE;
    pthread_mutex_lock(&str_lock);
    uint32_t count = atomic_load_explicit(&str_count, memory_order_relaxed);
    if ((size_t)(count + 1) * 2 > str_hash_cap && !str_hash_grow())
        goto out;
    size_t i = (size_t)str_hash_of(text) & (str_hash_cap - 1);
    for (; str_hash[i] != 0; i = (i + 1) & (str_hash_cap - 1)) {
        if (strcmp(syncmut_trace_string(str_hash[i] - 1), text) == 0) {
            result = str_hash[i] - 1;
            goto out;
        }
    }
    if (count >= STR_CHUNK * STR_CHUNKS)
        goto out;
    struct interned *chunk = str_chunks[count / STR_CHUNK];
    if (chunk == NULL) {
        chunk = calloc(STR_CHUNK, sizeof *chunk);
        if (chunk == NULL)
            goto out;
        str_chunks[count / STR_CHUNK] = chunk;
    }
    char *copy = strdup(text);
    if (copy == NULL)
        goto out;
    chunk[count % STR_CHUNK] = (struct interned){copy};
    atomic_store_explicit(&str_count, count + 1, memory_order_release);
    str_hash[i] = count + 1;
    result = count;
out:
    pthread_mutex_unlock(&str_lock);
    return result;
}


uint32_t syncmut_trace_string_count(void)
{
    return atomic_load_explicit(&str_count, memory_order_acquire);
}
