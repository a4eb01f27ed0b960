// capctl's own _swift_stdlib_getUnsafeArgvArgc (ArgumentVector.c): see there. Nothing to call
// from Swift; the module exists so that only capctl's binary links it.
#ifndef CARGUMENTVECTOR_H
#define CARGUMENTVECTOR_H
#endif
