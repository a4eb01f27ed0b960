// Kernel and C library interfaces the Swift Glibc module does not bring in, one file per concern:
// Terminal.c (a prompt's terminal), Processes.c (exec, spawn, pidfds, signals), Sockets.c (Unix
// sockets and their peers), Credentials.c (per-thread file credentials, leaving root) and
// ProcessCapabilities.c. The tests' seccomp refusals are Tests/CSeccompRefusals, never shipped.
#ifndef CLINUXSUPPORT_H
#define CLINUXSUPPORT_H

#include <stddef.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/xattr.h>

/// Opens a pseudo-terminal master and writes its slave's device name; returns the master or -1.
int clinux_open_pseudo_terminal(char *device_name, size_t size);

#include <termios.h>

/// Until `clinux_release_terminal`, SIGINT, SIGTERM, SIGHUP and SIGQUIT first restore `settings`
/// on `fd` (the echo a password prompt turned off), then take their previous action.
int clinux_guard_terminal(int fd, const struct termios *settings);
void clinux_release_terminal(void);

/// Marks every descriptor from `first` on close-on-exec; 0 on success.
int clinux_mark_descriptors_close_on_exec(int first);

/// Replaces this process with `file` (looked up in PATH as a shell would), with every signal
/// at its default action, no signal blocked, and only descriptors 0, 1 and 2 kept. Returns
/// errno when exec fails.
int clinux_exec_clean(const char *file, char *const argv[]);

#include <stdint.h>

#include <spawn.h>

/// Adds "close every descriptor from `first` on" to spawn file actions (glibc 2.34's
/// posix_spawn_file_actions_addclosefrom_np); returns 0 or an errno.
int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int first);

/// A pipe whose two ends are close-on-exec from the start (pipe2 with O_CLOEXEC); 0 or -1 with errno.
int clinux_pipe_close_on_exec(int descriptors[2]);

/// The user id of the process at the other end of a connected Unix socket (SO_PEERCRED), or -1.
long long clinux_socket_peer_uid(int fd);

/// Limits this process, and the programs it executes, to the capabilities in `mask` (bit n for
/// capability n), as systemd's CapabilityBoundingSet= with AmbientCapabilities= do: every other
/// capability leaves the bounding set, and those in `mask` become inheritable and ambient, so the
/// next program holds exactly them whether or not it runs as root. Returns 0, EPERM when a
/// capability in `mask` is not held or CAP_SETPCAP is missing, or another errno.
int clinux_confine_capabilities(uint64_t mask);

/// This process's effective capability set (bit n for capability n), as capget(2) gives it for the
/// process's main thread, which is the set /proc/self/status shows as CapEff. Returns 0 or an errno.
int clinux_effective_capabilities(uint64_t *mask);

/// The effective set of the thread `pid` names in this process's pid namespace (a process's main
/// thread, whose set /proc/PID/status shows as CapEff), by capget(2). Returns 0 or an errno (ESRCH
/// when no such thread runs). The number may be another process's by the time this returns, unless
/// the caller holds that process's /proc directory and reads through it afterwards.
int clinux_process_effective_capabilities(int pid, uint64_t *mask);

/// The calling thread's own effective set (capget(2) for thread 0), which a thread may have
/// narrowed apart from the process. Returns 0 or an errno.
int clinux_thread_effective_capabilities(uint64_t *mask);

/// Empties the calling thread's effective set (capset(2)), as a thread that drops what it does not
/// need would; the permitted set stays. Returns 0 or an errno.
int clinux_clear_thread_effective_capabilities(void);

/// What `clinux_unix_socket` does with the path.
enum clinux_unix_socket_use { CLINUX_UNIX_CONNECT = 0, CLINUX_UNIX_BIND = 1, CLINUX_UNIX_LISTEN = 2 };

/// A close-on-exec Unix socket of `type` (SOCK_STREAM, SOCK_DGRAM) connected to `path`, bound to
/// it, or bound and listening (backlog 64): the descriptor, or -errno (ENAMETOOLONG for a path of
/// 108 bytes or more).
int clinux_unix_socket(const char *path, int type, enum clinux_unix_socket_use use);

/// The process at the other end of a connected Unix socket (SO_PEERCRED): 0, or an errno.
int clinux_socket_peer_credentials(int fd, int *pid, unsigned *uid, unsigned *gid);

/// The peer's supplementary groups (SO_PEERGROUPS, Linux 4.13): writes up to `capacity` ids and
/// their count; 0, ERANGE with the count needed, ENOPROTOOPT where the kernel lacks it, or an errno.
int clinux_socket_peer_groups(int fd, unsigned *groups, int capacity, int *count);

/// A pidfd for the socket's peer (SO_PEERPIDFD, Linux 6.5), or -1 with errno (ENOPROTOOPT where missing).
int clinux_socket_peer_pidfd(int fd);


/// accept4(fd, NULL, NULL, SOCK_CLOEXEC): the connection is close-on-exec from the start.
int clinux_accept_cloexec(int fd);

/// A pidfd for `pid` (pidfd_open, Linux 5.3), or -1 with errno.
int clinux_pidfd_open(int pid);

/// Whether the process a pidfd names still runs: 1, 0 when it has exited, or -1 with errno.
int clinux_pidfd_alive(int pidfd);

/// Takes `name`'s login groups (initgroups), then `gid` and `uid` as real, effective and saved
/// ids, and checks they took: 0, or an errno (EPERM when a check fails).
int clinux_become_user(const char *name, unsigned uid, unsigned gid);

/// Runs `body(context)` on a thread of its own whose file-system credentials alone are `uid`, `gid`
/// and `groups` (set with the raw system calls, which change only the calling thread, unlike
/// glibc's wrappers, which change every thread), so the kernel judges file access as it would
/// for that user; root's file capabilities leave the thread's effective set when its fsuid is
/// not 0. The thread is one of a few kept for these runs alone (a new one when all are busy), and
/// takes the credentials afresh for each. Returns 0, EPERM when this process may not take those
/// credentials, or an errno.
int clinux_run_with_file_credentials(unsigned uid, unsigned gid, const unsigned *groups, int count,
                                     void (*body)(void *), void *context);

/// prctl(PR_SET_NO_NEW_PRIVS): from now on no exec (a setuid program, file capabilities) can
/// give this process or its children more privileges. 0, or an errno.
int clinux_forbid_new_privileges(void);

/// Leaves root for good: no supplementary groups, then `gid` and `uid` as real, effective and
/// saved ids (which clears every capability), and checks all of it took. 0, or an errno (EPERM
/// when a check fails).
int clinux_drop_privileges(unsigned uid, unsigned gid);


/// Unblocks `signals` in the calling thread, and so in the threads it starts afterwards (a mask
/// inherited at exec would keep them pending for ever): 0, or an errno.
int clinux_unblock_signals(const int *signals, int count);

#endif
