#include "heap_usage.h"
