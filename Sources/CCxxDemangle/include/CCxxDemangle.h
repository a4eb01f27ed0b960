// capctl's own __cxa_demangle (CxxDemangle.c): see there. Nothing to call from Swift; the module
// exists so that only capctl's binary links it.
#ifndef CCXXDEMANGLE_H
#define CCXXDEMANGLE_H
#endif
