// Kernel and C library interfaces the Swift Glibc module does not bring in.
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

/// The user id of the process at the other end of a connected Unix socket (SO_PEERCRED), or -1.
long long clinux_socket_peer_uid(int fd);

/// Limits this process, and the programs it executes, to the capabilities in `mask` (bit n for
/// capability n), as systemd's CapabilityBoundingSet= with AmbientCapabilities= do: every other
/// capability leaves the bounding set, and those in `mask` become inheritable and ambient, so the
/// next program holds exactly them whether or not it runs as root. Returns 0, EPERM when a
/// capability in `mask` is not held or CAP_SETPCAP is missing, or another errno.
int clinux_confine_capabilities(uint64_t mask);

#endif
