// Headers only; this file gives the target a translation unit.
#include "CLinuxSupport.h"
