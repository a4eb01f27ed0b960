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
