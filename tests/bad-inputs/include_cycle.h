/* Includes itself with no guard: clang gives up at its nesting limit, ctkgen must not hang. */
#include "include_cycle.h"
struct Cycle { int x; };
