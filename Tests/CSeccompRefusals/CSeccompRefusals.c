// Test-only seccomp refusals: a newer kernel made to behave as an older one (no SO_PEERPIDFD),
// or a sandbox that forbids capget(2), for tests of the paths that do without them. Built only
// into the tests' probe, never into a shipped binary.
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "CSeccompRefusals.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77  // asm-generic/socket.h, Linux 6.5
#endif

/// Installs a seccomp filter made of `rule` (which ends by returning, or falls through to allow)
/// behind a check of the architecture; system calls of another architecture are allowed.
static int clinux_install_refusal(const struct sock_filter *rule, unsigned short count) {
#if defined(__x86_64__)
    const unsigned architecture = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    const unsigned architecture = AUDIT_ARCH_AARCH64;
#else
    return ENOSYS;
#endif
    struct sock_filter filter[16] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, architecture, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    if (count > 12) return EINVAL;
    memcpy(filter + 3, rule, count * sizeof *rule);
    filter[3 + count] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog program = {.len = (unsigned short)(count + 4), .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return errno;
    return 0;
}

int clinux_refuse_peer_pidfd(void) {
    // getsockopt(fd, level, name, ...): the low 32 bits of arguments 1 and 2 (little-endian).
    const struct sock_filter rule[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 5),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOL_SOCKET, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SO_PEERPIDFD, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOPROTOOPT & SECCOMP_RET_DATA)),
    };
    return clinux_install_refusal(rule, sizeof rule / sizeof rule[0]);
}

int clinux_refuse_capget(void) {
    const struct sock_filter rule[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_capget, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    return clinux_install_refusal(rule, sizeof rule / sizeof rule[0]);
}
