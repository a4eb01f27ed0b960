#define _GNU_SOURCE
#include <sys/eventfd.h>
#include "CPlatform.h"
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

long cplatform_processor_count(void) {
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count > 0 ? count : 1;
}

int cplatform_thread_id(void) { return (int)syscall(SYS_gettid); }

int cplatform_thread_is_runnable(int id) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", id);
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return errno == ENOENT ? 0 : -1;
    char text[512];
    ssize_t count = read(descriptor, text, sizeof text - 1);
    close(descriptor);
    if (count <= 0) return -1;
    text[count] = 0;
    // The state follows the name, which is in parentheses and may itself hold one.
    char *end = strrchr(text, ')');
    if (end == NULL || end[1] != ' ' || end[2] == 0) return -1;
    return end[2] == 'R';
}

static _Thread_local void *thread_marker;

void *cplatform_thread_marker(void) { return thread_marker; }

void cplatform_set_thread_marker(void *marker) { thread_marker = marker; }

static _Thread_local int thread_may_block;

int cplatform_thread_may_block(void) { return thread_may_block; }

void cplatform_set_thread_may_block(int may_block) { thread_may_block = may_block; }

#include <pthread.h>

void *cplatform_load_acquiring(void *const *address) { return __atomic_load_n(address, __ATOMIC_ACQUIRE); }

void *cplatform_set_once(void **address, void *desired) {
    void *expected = NULL;
    if (__atomic_compare_exchange_n(address, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return desired;
    }
    return expected;
}

// The cache is read through a thread-local variable (one load); the pthread key exists only so
// that the thread's exit releases it.
static _Thread_local void *thread_cache;
static pthread_key_t thread_cache_key;
static pthread_once_t thread_cache_key_once = PTHREAD_ONCE_INIT;
static void (*thread_cache_release)(void *);

static void release_thread_cache(void *cache) {
    thread_cache = NULL;
    void (*release)(void *) = __atomic_load_n(&thread_cache_release, __ATOMIC_ACQUIRE);
    if (cache != NULL && release != NULL) release(cache);
}

static void make_thread_cache_key(void) { pthread_key_create(&thread_cache_key, release_thread_cache); }

void *cplatform_thread_cache(void) { return thread_cache; }

void cplatform_set_thread_cache(void *cache, void (*release)(void *)) {
    pthread_once(&thread_cache_key_once, make_thread_cache_key);
    // Every thread passes the same function; atomic only because several may at once.
    __atomic_store_n(&thread_cache_release, release, __ATOMIC_RELEASE);
    thread_cache = cache;
    pthread_setspecific(thread_cache_key, cache);
}

#include <sys/resource.h>

// The first thread's nice value, read before main runs (no other thread exists yet).
static int start_nice;
static int start_nice_known;

__attribute__((constructor)) static void remember_start_nice(void) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    if (errno == 0) {
        start_nice = nice;
        start_nice_known = 1;
    }
}

int cplatform_take_start_priority(void) {
    if (!start_nice_known) return 0;
    // PRIO_PROCESS with 0 is the calling thread on Linux, not the whole process.
    errno = 0;
    int current = getpriority(PRIO_PROCESS, 0);
    if (errno != 0 || current == start_nice) return 0;
    return setpriority(PRIO_PROCESS, 0, start_nice) == 0 ? 0 : errno;
}

int cplatform_start_nice(void) { return start_nice; }

static void *probe_start_priority(void *result) {
    // At 0 first (lowering is always allowed), as Dispatch sets its default workers.
    if (setpriority(PRIO_PROCESS, 0, 0) != 0) return NULL;
    *(int *)result = cplatform_take_start_priority();
    return NULL;
}

int cplatform_start_priority_refusal(void) {
    // Only a value above Dispatch's (below 0) has to be raised back to.
    if (!start_nice_known || start_nice >= 0) return 0;
    int result = 0;
    pthread_t thread;
    if (pthread_create(&thread, NULL, probe_start_priority, &result) != 0) return 0;
    pthread_join(thread, NULL);
    return result;
}

int cplatform_start_thread(void *(*start)(void *), void *context) {
    pthread_attr_t attributes;
    int result = pthread_attr_init(&attributes);
    if (result != 0) return result;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    result = pthread_create(&thread, &attributes, start, context);
    pthread_attr_destroy(&attributes);
    return result;
}

#include <string.h>

void cplatform_name_current_thread(const char *name) {
#ifdef __linux__
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
#else
    (void)name;
#endif
}

#include <sched.h>
#include <time.h>

int cplatform_current_processor(void) {
#ifdef __linux__
    int processor = sched_getcpu();
    return processor >= 0 ? processor : 0;
#else
    return 0;
#endif
}

int cplatform_boottime_nanoseconds(long long *nanoseconds) {
#ifdef CLOCK_BOOTTIME
    struct timespec time;
    if (clock_gettime(CLOCK_BOOTTIME, &time) != 0) return -1;
    *nanoseconds = (long long)time.tv_sec * 1000000000LL + time.tv_nsec;
    return 0;
#else
    (void)nanoseconds;
    return -1;
#endif
}

int cplatform_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

#include <sys/epoll.h>
#include <errno.h>
#include <stdint.h>

int cplatform_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int cplatform_epoll_watch_once(int epoll, int descriptor, uint64_t token, int adding, int for_output) {
    uint32_t events = for_output ? EPOLLOUT : EPOLLIN | EPOLLRDHUP;
    struct epoll_event event = { .events = events | EPOLLONESHOT, .data.u64 = token };
    return epoll_ctl(epoll, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, descriptor, &event);
}

int cplatform_epoll_watch_level(int epoll, int descriptor, uint64_t token) {
    struct epoll_event event = { .events = EPOLLIN, .data.u64 = token };
    return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event);
}

int cplatform_epoll_wait_one(int epoll, int timeout_milliseconds, uint64_t *token) {
    struct epoll_event event;
    int ready = epoll_wait(epoll, &event, 1, timeout_milliseconds);
    if (ready == 1) *token = event.data.u64;
    return ready;
}
