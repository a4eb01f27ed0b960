#ifndef CPLATFORM_H
#define CPLATFORM_H

#include <stdint.h>

// The few operating system services the portable modules (ProcedureCore) need, behind one
// shim, so those modules import no C library of their own.

/// The number of processors online, at least 1.
long cplatform_processor_count(void);

/// The calling thread's id (gettid(2)).
int cplatform_thread_id(void);
/// Whether thread `id` of this process is running or waiting only for a processor (its state in
/// /proc/self/task/ID/stat is R): 1, 0 when it sleeps (or has ended), -1 when it cannot be read.
int cplatform_thread_is_runnable(int id);

/// A pointer kept per thread (the queue whose worker loop the thread runs).
void *cplatform_thread_marker(void);
void cplatform_set_thread_marker(void *marker);
/// Whether the calling thread is one of our own that may block (a service's client thread
/// running a decision's tasks itself), so blocking work runs on it rather than being handed on.
int cplatform_thread_may_block(void);
void cplatform_set_thread_may_block(int may_block);

/// An object kept per thread (ProcedureCore's shared condition lists), released by `release`
/// when the thread exits. `cplatform_set_thread_cache` may be called once per thread.
void *cplatform_thread_cache(void);
void cplatform_set_thread_cache(void *cache, void (*release)(void *));

/// A pointer-sized word at `address`, read with acquiring order.
void *cplatform_load_acquiring(void *const *address);
/// Sets the word at `address` to `desired` if it is null (releasing order). Returns the word's
/// value afterwards: `desired` when it was set, otherwise what another thread set first.
void *cplatform_set_once(void **address, void *desired);

/// Starts a detached thread running `start(context)`. Returns 0, or the pthread_create error.
int cplatform_start_thread(void *(*start)(void *), void *context);

/// Gives the calling thread the nice value the process's first thread had when the program was
/// loaded, if it has another. Dispatch sets its worker threads' nice values from their quality of
/// service, whatever the process was started with, and a thread inherits its starter's: without
/// this, a daemon started at `Nice=-5` serves at 0. Raising a thread back needs CAP_SYS_NICE or a
/// RLIMIT_NICE that allows it; without either the thread keeps the value it inherited. Returns 0,
/// or the errno of a raise that was refused.
int cplatform_take_start_priority(void);
/// The nice value the process's first thread had when the program was loaded.
int cplatform_start_nice(void);
/// Whether a thread started from one of Dispatch's default workers (nice 0) can take back a start
/// priority above theirs (a negative nice value): 0 (also when there is none), or the errno refusing
/// it. A thread of its own tries, and ends.
int cplatform_start_priority_refusal(void);

/// Names the calling thread (the first 15 bytes of `name`), as `top -H` and `ps -L` show it.
void cplatform_name_current_thread(const char *name);

/// A new eventfd, close-on-exec and non-blocking (a signal one thread polls and another gives),
/// or -1 with errno set.
int cplatform_eventfd(void);

/// A new epoll set, close-on-exec, or -1 with errno set.
int cplatform_epoll_create(void);

/// Watches `descriptor` in `epoll` for input or the peer's closing (`for_output` 0), or for room
/// to write (`for_output` 1; an error or hang-up is reported either way), once (EPOLLONESHOT:
/// armed again by calling this with `adding` 0), reported with `token`. Returns 0, or -1 with
/// errno set.
int cplatform_epoll_watch_once(int epoll, int descriptor, uint64_t token, int adding, int for_output);

/// Watches `descriptor` in `epoll` for input for as long as it has any (level-triggered), reported
/// with `token`. Returns 0, or -1 with errno set.
int cplatform_epoll_watch_level(int epoll, int descriptor, uint64_t token);

/// Waits up to `timeout_milliseconds` (-1: without end) for one event of `epoll`; returns 1 and
/// sets `token`, 0 when the time ran out, or -1 with errno set.
int cplatform_epoll_wait_one(int epoll, int timeout_milliseconds, uint64_t *token);

/// The processor the calling thread runs on (a hint: it may change at once), or 0 when unknown.
int cplatform_current_processor(void);

/// Nanoseconds on CLOCK_BOOTTIME (monotonic, counting suspended time): what Swift's
/// ContinuousClock reads on Linux. Returns 0 and sets `nanoseconds`, or -1 where there is no such clock.
int cplatform_boottime_nanoseconds(long long *nanoseconds);

#endif
