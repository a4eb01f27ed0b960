// Unix sockets: made, accepted close-on-exec, and their peers as the kernel recorded them.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/un.h>
#include <unistd.h>
#include "CLinuxSupport.h"

// Older headers than the kernels we run on.
#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

long long clinux_socket_peer_uid(int fd) {
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    return (long long)credentials.uid;
}


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

int clinux_accept_cloexec(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC);
}

int clinux_unix_socket(const char *path, int type, enum clinux_unix_socket_use use) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(path);
    if (length >= sizeof address.sun_path) return -ENAMETOOLONG;
    memcpy(address.sun_path, path, length + 1);
    int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int result = use == CLINUX_UNIX_CONNECT ? connect(fd, (struct sockaddr *)&address, sizeof address)
                                            : bind(fd, (struct sockaddr *)&address, sizeof address);
    if (result == 0 && use == CLINUX_UNIX_LISTEN) result = listen(fd, SOMAXCONN);
    if (result != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}
