#include "CPlatform.h"
#include <unistd.h>

long cplatform_processor_count(void) {
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count > 0 ? count : 1;
}

static _Thread_local void *thread_marker;

void *cplatform_thread_marker(void) { return thread_marker; }

void cplatform_set_thread_marker(void *marker) { thread_marker = marker; }
