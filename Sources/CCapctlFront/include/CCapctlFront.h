// What capctl's front (Sources/capctl-front) uses of the C library, and its command line: the
// front is built without the Swift runtime (Embedded Swift), so without Glibc's Swift module.
#ifndef CCAPCTLFRONT_H
#define CCAPCTLFRONT_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/// The process's arguments as glibc handed them to the front's constructor.
int capctl_front_argument_count(void);
char **capctl_front_arguments(void);

/// errno, which Embedded Swift cannot read as a variable.
int capctl_front_errno(void);

/// Loads the library at `path` (dlopen, RTLD_LAZY | RTLD_LOCAL) when it is trusted, judged on the
/// descriptor it is then loaded through: a regular file owned by root or this user that no group
/// and nobody else may write, in a directory of which the same holds. The handle, or NULL with
/// the reason in `reason` (`capacity` bytes).
void *capctl_front_load_trusted(const char *path, char *reason, size_t capacity);

#endif
