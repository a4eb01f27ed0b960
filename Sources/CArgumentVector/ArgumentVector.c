// The Swift runtime finds a Linux process's arguments (CommandLine.arguments) without main's
// help: a constructor of its own reads /proc/self/maps with sscanf to find the stack, then walks
// back from environ to argv. In capctl that is a file of some forty lines made by the kernel and
// 100,000 instructions at every start, for a vector glibc hands to every ELF constructor anyway
// (argc, argv and envp, as it does on all its architectures). This definition of the runtime's
// entry, linked before the standard library's archive is searched, keeps the runtime's own
// (CommandLine.cpp) out of the static link, and with it that constructor. Should another symbol
// of that member ever be needed, the link fails on a duplicate definition rather than choosing
// one. Only capctl's binary links this module, and exports nothing.
#include <stddef.h>

static int argumentCount;
static char **argumentVector;
static char *noArguments[] = {NULL};

// Priority 101, the first an application may use: before the runtime's own constructors, should
// one of them ask for the arguments.
__attribute__((constructor(101))) static void keepArguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != NULL) {
        argumentCount = argc;
        argumentVector = argv;
    }
}

char *const *_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);

char *const *_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    if (argumentVector == NULL) {
        // The runtime's answer when it cannot find them: no arguments, never a null vector.
        *outArgLen = 0;
        return noArguments;
    }
    *outArgLen = argumentCount;
    return argumentVector;
}
