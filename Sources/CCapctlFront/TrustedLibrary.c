// The library capctl's front loads is code run as whoever runs capctl, root's capctld too: it is
// loaded only when nobody but root and this user can change it (TrustedFile's rule for a file and
// the directory that holds it).
#define _GNU_SOURCE
#include "CCapctlFront.h"

static const char *untrusted(const struct stat *info) {
    if (info->st_uid != 0 && info->st_uid != geteuid()) return "is owned by neither root nor you";
    // With an access ACL the group bits are its mask: no group write bit, no other writer.
    if (info->st_mode & (S_IWGRP | S_IWOTH)) return "may be written by others";
    return NULL;
}

void *capctl_front_load_trusted(const char *path, char *reason, size_t capacity) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(reason, capacity, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat info;
    const char *problem = NULL;
    char file[64], directory[4096];
    snprintf(file, sizeof file, "/proc/self/fd/%d", fd);
    if (fstat(fd, &info) != 0) problem = "cannot be examined";
    else if (!S_ISREG(info.st_mode)) problem = "is not a regular file";
    else problem = untrusted(&info);
    if (problem == NULL) {
        // The directory the file was found in, by the descriptor's own name for it.
        ssize_t count = readlink(file, directory, sizeof directory - 1);
        char *slash = NULL;
        if (count > 0) {
            directory[count] = 0;
            slash = strrchr(directory, '/');
        }
        struct stat holder;
        if (slash == NULL) problem = "has no directory this process can name";
        else {
            if (slash == directory) slash[1] = 0; else *slash = 0;
            if (stat(directory, &holder) != 0 || !S_ISDIR(holder.st_mode)) problem = "is in a directory that cannot be examined";
            else if (untrusted(&holder) != NULL) problem = "is in a directory others may change";
        }
    }
    if (problem != NULL) {
        snprintf(reason, capacity, "%s %s: not loaded", path, problem);
        close(fd);
        return NULL;
    }
    // Loaded through the descriptor that was checked: nothing can be put in its place between.
    void *library = dlopen(file, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) snprintf(reason, capacity, "%s", dlerror());
    close(fd);
    return library;
}
