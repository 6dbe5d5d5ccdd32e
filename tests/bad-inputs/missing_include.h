#include "does_not_exist.h"
struct Fine { int x; };
