// A password prompt's terminal: a pseudo-terminal for tests, and the echo a prompt turned off
// restored whatever signal ends the process.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/un.h>
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
