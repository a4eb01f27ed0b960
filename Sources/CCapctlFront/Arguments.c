// The front's arguments: glibc passes argc and argv to every ELF constructor, and Embedded Swift
// has no CommandLine.
#include "CCapctlFront.h"

static int argumentCount;
static char **argumentVector;
static char *noArguments[] = {NULL};

__attribute__((constructor)) static void keepArguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != NULL) {
        argumentCount = argc;
        argumentVector = argv;
    }
}

int capctl_front_argument_count(void) { return argumentVector == NULL ? 0 : argumentCount; }

char **capctl_front_arguments(void) { return argumentVector == NULL ? noArguments : argumentVector; }

int capctl_front_errno(void) { return errno; }
