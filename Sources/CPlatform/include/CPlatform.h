#ifndef CPLATFORM_H
#define CPLATFORM_H

// The few operating system services the portable modules (ProcedureCore) need, behind one
// shim, so those modules import no C library of their own.

/// The number of processors online, at least 1.
long cplatform_processor_count(void);

/// A pointer kept per thread (the queue whose worker loop the thread runs).
void *cplatform_thread_marker(void);
void cplatform_set_thread_marker(void *marker);

/// Starts a detached thread running `start(context)`. Returns 0, or the pthread_create error.
int cplatform_start_thread(void *(*start)(void *), void *context);

#endif
