// Kernel interfaces the Swift Glibc module does not bring in.
#ifndef CLINUXSUPPORT_H
#define CLINUXSUPPORT_H

#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#endif
