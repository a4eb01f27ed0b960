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

#endif
