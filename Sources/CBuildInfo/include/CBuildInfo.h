#ifndef CBUILDINFO_H
#define CBUILDINFO_H

// The commit a release build was made from. Scripts/build-deb writes capctl_commit.h (which
// git ignores) before its build and removes it after; a build without it says "unknown".
#if __has_include("capctl_commit.h")
#include "capctl_commit.h"
#endif

#ifndef CAPCTL_COMMIT
#define CAPCTL_COMMIT "unknown"
#endif

static inline const char *capctl_build_commit(void) { return CAPCTL_COMMIT; }

#endif
