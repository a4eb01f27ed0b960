// The header is the whole module; SwiftPM needs one source file to build a C target.
#include "CBuildInfo.h"
