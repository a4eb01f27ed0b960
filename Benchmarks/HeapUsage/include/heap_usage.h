#ifndef HEAP_USAGE_H
#define HEAP_USAGE_H
#include <malloc.h>
#include <stddef.h>

/// Bytes the allocator has handed out and not taken back (glibc's mallinfo2).
static inline size_t heap_usage_in_use_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#endif
