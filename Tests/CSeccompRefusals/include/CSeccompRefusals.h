#ifndef CSECCOMPREFUSALS_H
#define CSECCOMPREFUSALS_H

/// Makes this process's kernel behave, for SO_PEERPIDFD, as one before Linux 6.5: from now on
/// getsockopt(SOL_SOCKET, SO_PEERPIDFD) fails with ENOPROTOOPT (a seccomp filter; sets
/// no_new_privs). For tests of the older path on a newer kernel. 0, or an errno.
int clinux_refuse_peer_pidfd(void);

/// Makes capget(2) fail with EPERM for this process and what it executes (a seccomp filter, as a
/// sandbox that forbids it would): for tests of the reading that does without it. 0 or an errno.
int clinux_refuse_capget(void);

#endif
