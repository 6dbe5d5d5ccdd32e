/* Pinned stand-in for <stddef.h>, used only when ctkgen reads CUDA headers with libclang.
   Types come from the compiler's predefined macros for the target triple, so the parse does
   not depend on the host's C library. */
#ifndef CTKGEN_STDDEF_H
#define CTKGEN_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t;
#endif
#ifdef __cplusplus
#define NULL 0
#else
#define NULL ((void *)0)
#endif
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
