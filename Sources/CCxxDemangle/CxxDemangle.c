// capctl links GCC's C++ runtime in (Packaging/Linking/README.md). The Swift runtime calls
// __cxa_demangle only to name C++ frames when it prints a crash's backtrace, and GCC's demangler
// is 45 KB of the package, more than its size target leaves. This definition, linked before the
// archive is searched, keeps GCC's out: it answers as the C++ ABI says a demangler answers a name
// it cannot read (status -2, no result), so such a frame is printed by its mangled name, which
// c++filt reads. Only capctl's binary links this module, and exports nothing, so no library
// loaded later sees it.
#include <stddef.h>

char *__cxa_demangle(const char *mangled_name, char *output_buffer, size_t *length, int *status);

char *__cxa_demangle(const char *mangled_name, char *output_buffer, size_t *length, int *status) {
    (void)output_buffer;
    (void)length;
    if (status != NULL) {
        // -3: an argument is invalid; -2: not a name this demangler reads (the ABI's two answers).
        *status = mangled_name == NULL ? -3 : -2;
    }
    return NULL;
}
