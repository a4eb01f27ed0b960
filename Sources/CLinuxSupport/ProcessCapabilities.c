// Process capabilities (capabilities(7)): reading the effective set, per thread and per process,
// and confining a process to a set.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "CLinuxSupport.h"

int clinux_effective_capabilities(uint64_t *mask) {
    // The process id names the main thread: the task whose credentials /proc/self/status reads.
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, getpid()};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return errno;
    *mask = (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
    return 0;
}

int clinux_process_effective_capabilities(int pid, uint64_t *mask) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, pid};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return errno;
    *mask = (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
    return 0;
}

int clinux_thread_effective_capabilities(uint64_t *mask) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return errno;
    *mask = (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
    return 0;
}

int clinux_clear_thread_effective_capabilities(void) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return errno;
    data[0].effective = 0;
    data[1].effective = 0;
    if (syscall(SYS_capset, &header, data) != 0) return errno;
    return 0;
}

int clinux_confine_capabilities(uint64_t mask) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return errno;
    uint64_t permitted = (uint64_t)data[0].permitted | ((uint64_t)data[1].permitted << 32);
    // A capability this process does not hold cannot be passed on.
    if ((mask & permitted) != mask) return EPERM;
    for (int capability = 0; capability < 64; capability++) {
        int present = prctl(PR_CAPBSET_READ, capability, 0, 0, 0);
        if (present < 0) break;  // past the kernel's last capability
        if (present == 1 && !(mask & (1ULL << capability))) {
            if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) return errno;
        }
    }
    data[0].inheritable = (uint32_t)mask;
    data[1].inheritable = (uint32_t)(mask >> 32);
    if (syscall(SYS_capset, &header, data) != 0) return errno;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return errno;
    for (int capability = 0; capability < 64; capability++) {
        if (!(mask & (1ULL << capability))) continue;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, capability, 0, 0) != 0) return errno;
    }
    return 0;
}
