#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "CLinuxSupport.h"

int clinux_open_pseudo_terminal(char *device_name, size_t size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, device_name, size) != 0) {
        close(master);
        return -1;
    }
    return master;
}

// MARK: Terminal echo restored on a signal

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <termios.h>

static const int guarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define GUARDED_COUNT (sizeof guarded_signals / sizeof guarded_signals[0])
static volatile sig_atomic_t guarded_fd = -1;
static struct termios guarded_settings;
static struct sigaction previous_actions[GUARDED_COUNT];

static void restore_and_reraise(int signal_number) {
    int fd = guarded_fd;
    if (fd >= 0) tcsetattr(fd, TCSAFLUSH, &guarded_settings);
    for (size_t i = 0; i < GUARDED_COUNT; i++) {
        if (guarded_signals[i] == signal_number) sigaction(signal_number, &previous_actions[i], NULL);
    }
    guarded_fd = -1;
    raise(signal_number);
}

int clinux_guard_terminal(int fd, const struct termios *settings) {
    memcpy(&guarded_settings, settings, sizeof guarded_settings);
    guarded_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = restore_and_reraise;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < GUARDED_COUNT; i++) {
        if (sigaction(guarded_signals[i], &action, &previous_actions[i]) != 0) return -1;
    }
    return 0;
}

void clinux_release_terminal(void) {
    for (size_t i = 0; i < GUARDED_COUNT; i++) sigaction(guarded_signals[i], &previous_actions[i], NULL);
    guarded_fd = -1;
}

// MARK: A clean process image for exec

#include <dirent.h>
#include <errno.h>
#include <sys/syscall.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

int clinux_mark_descriptors_close_on_exec(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
#endif
    // Older kernels: walk /proc/self/fd instead.
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL) return -1;
    int own = dirfd(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd < first || fd == own) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
    closedir(directory);
    return 0;
}

int clinux_exec_clean(const char *file, char *const argv[]) {
    // Dispositions: a handled signal resets at exec by itself, an ignored one would stay ignored.
    for (int signal_number = 1; signal_number < NSIG; signal_number++) {
        if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
        if (signal(signal_number, SIG_DFL) == SIG_ERR) {
            // glibc keeps two real-time signals for itself and refuses them; the kernel does not.
            // A kernel sigaction of all zeros is SIG_DFL with no flags and an empty mask.
            unsigned long zeros[4] = {0, 0, 0, 0};
            syscall(SYS_rt_sigaction, signal_number, zeros, NULL, sizeof(unsigned long));
        }
    }
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    clinux_mark_descriptors_close_on_exec(3);
    execvp(file, argv);
    return errno;
}

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int clinux_effective_capabilities(uint64_t *mask) {
    // The process id names the main thread: the task whose credentials /proc/self/status reads.
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, getpid()};
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

long long clinux_socket_peer_uid(int fd) {
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    return (long long)credentials.uid;
}

int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int first) {
    return posix_spawn_file_actions_addclosefrom_np(actions, first);
}

int clinux_pipe_close_on_exec(int descriptors[2]) {
    return pipe2(descriptors, O_CLOEXEC);
}

// MARK: Subjects: socket peers, pidfds, per-thread file credentials

#include <grp.h>
#include <sys/types.h>

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int clinux_socket_peer_credentials(int fd, int *pid, unsigned *uid, unsigned *gid) {
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return errno;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int clinux_socket_peer_groups(int fd, unsigned *groups, int capacity, int *count) {
    socklen_t size = (socklen_t)(capacity * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &size) != 0) {
        int error = errno;
        *count = (int)(size / sizeof(gid_t));
        return error;
    }
    *count = (int)(size / sizeof(gid_t));
    return 0;
}

int clinux_socket_peer_pidfd(int fd) {
    int pidfd = -1;
    socklen_t size = sizeof pidfd;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &size) != 0) return -1;
    return pidfd;
}

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

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

#include <sys/stat.h>

int clinux_file_identity(const char *path, unsigned long long *device, unsigned long long *inode) {
    struct stat information;
    if (stat(path, &information) != 0) return errno;
    *device = (unsigned long long)information.st_dev;
    *inode = (unsigned long long)information.st_ino;
    return 0;
}

int clinux_accept_cloexec(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC);
}

int clinux_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int clinux_pidfd_alive(int pidfd) {
    if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0) return 1;
    return errno == ESRCH ? 0 : -1;
}

struct credential_run {
    unsigned uid, gid;
    const unsigned *groups;
    int count;
    void (*body)(void *);
    void *context;
    int result;
};

static void *run_with_credentials(void *argument) {
    struct credential_run *run = argument;
    // Raw system calls: glibc's setgroups, setfsuid and setfsgid would be fine for the two fs
    // ids (per thread), but setgroups is broadcast to every thread by glibc; the kernel's is not.
    if (syscall(SYS_setgroups, (size_t)run->count, run->groups) != 0) {
        run->result = errno;
        return NULL;
    }
    syscall(SYS_setfsgid, run->gid);
    syscall(SYS_setfsuid, run->uid);
    // setfsuid and setfsgid report the previous value and never fail: ask again to see they took.
    if ((unsigned)syscall(SYS_setfsgid, (gid_t)-1) != run->gid || (unsigned)syscall(SYS_setfsuid, (uid_t)-1) != run->uid) {
        run->result = EPERM;
        return NULL;
    }
    run->body(run->context);
    run->result = 0;
    return NULL;
}

int clinux_run_with_file_credentials(unsigned uid, unsigned gid, const unsigned *groups, int count,
                                     void (*body)(void *), void *context) {
    struct credential_run run = {uid, gid, groups, count, body, context, 0};
    pthread_t thread;
    int error = pthread_create(&thread, NULL, run_with_credentials, &run);
    if (error != 0) return error;
    pthread_join(thread, NULL);
    return run.result;
}

/// Sets `gid` then `uid` as real, effective and saved ids, and checks they took: 0, or an errno.
static int set_ids_checked(unsigned uid, unsigned gid) {
    if (setresgid(gid, gid, gid) != 0) return errno;
    if (setresuid(uid, uid, uid) != 0) return errno;
    uid_t real, effective, saved;
    gid_t real_group, effective_group, saved_group;
    if (getresuid(&real, &effective, &saved) != 0 || getresgid(&real_group, &effective_group, &saved_group) != 0) {
        return errno;
    }
    if (real != uid || effective != uid || saved != uid || real_group != gid || effective_group != gid ||
        saved_group != gid) {
        return EPERM;
    }
    return 0;
}

int clinux_become_user(const char *name, unsigned uid, unsigned gid) {
    if (initgroups(name, gid) != 0) return errno;
    return set_ids_checked(uid, gid);
}

#include <sys/un.h>

int clinux_unix_socket(const char *path, int type, enum clinux_unix_socket_use use) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(path);
    if (length >= sizeof address.sun_path) return -ENAMETOOLONG;
    memcpy(address.sun_path, path, length + 1);
    int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int result = use == CLINUX_UNIX_CONNECT ? connect(fd, (struct sockaddr *)&address, sizeof address)
                                            : bind(fd, (struct sockaddr *)&address, sizeof address);
    if (result == 0 && use == CLINUX_UNIX_LISTEN) result = listen(fd, 64);
    if (result != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int clinux_forbid_new_privileges(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
}

int clinux_drop_privileges(unsigned uid, unsigned gid) {
    if (setgroups(0, NULL) != 0) return errno;
    int code = set_ids_checked(uid, gid);
    if (code != 0) return code;
    if (getgroups(0, NULL) != 0) return EPERM;
    // No way back: regaining root must fail.
    if (uid != 0 && setuid(0) == 0) return EPERM;
    return 0;
}

static int clinux_signal_pipe_writer = -1;

static void clinux_signal_to_pipe(int signal_number) {
    int saved = errno;
    unsigned char byte = (unsigned char)signal_number;
    ssize_t ignored = write(clinux_signal_pipe_writer, &byte, 1);
    (void)ignored;
    errno = saved;
}

int clinux_unblock_signals(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int index = 0; index < count; index++) sigaddset(&set, signals[index]);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int clinux_signal_pipe(const int *signals, int count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -errno;
    clinux_signal_pipe_writer = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = clinux_signal_to_pipe;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int index = 0; index < count; index++) {
        if (sigaction(signals[index], &action, NULL) != 0) return -errno;
    }
    // A mask inherited from whoever started us (a parent thread that blocks them) would keep them
    // pending for ever: unblocked here, and in every thread started from now on.
    clinux_unblock_signals(signals, count);
    return ends[0];
}
