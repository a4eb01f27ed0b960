// Processes and their descriptors: exec and spawn with nothing inherited by accident, pidfds,
// a file's identity, signals unblocked.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "CLinuxSupport.h"


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

int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int first) {
    return posix_spawn_file_actions_addclosefrom_np(actions, first);
}

int clinux_pipe_close_on_exec(int descriptors[2]) {
    return pipe2(descriptors, O_CLOEXEC);
}

int clinux_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int clinux_pidfd_alive(int pidfd) {
    if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0) return 1;
    return errno == ESRCH ? 0 : -1;
}

int clinux_unblock_signals(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int index = 0; index < count; index++) sigaddset(&set, signals[index]);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
