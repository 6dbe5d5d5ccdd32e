/* Pinned stand-in for <stdlib.h>, used only when ctkgen reads CUDA headers with libclang.
   cuda.h needs nothing from it but size_t. */
#ifndef CTKGEN_STDLIB_H
#define CTKGEN_STDLIB_H
#include <stddef.h>
#endif
