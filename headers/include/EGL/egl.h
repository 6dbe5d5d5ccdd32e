/* Pinned stand-in for <EGL/egl.h>, used only when ctkgen reads CUDA headers with libclang and
   when the generated package is compiled. It declares the EGL type cudaEGL.h uses: the real
   header's EGLint is khronos_int32_t, which is int32_t on Linux. */
#ifndef CTKGEN_EGL_EGL_H
#define CTKGEN_EGL_EGL_H
#include <stdint.h>
typedef int32_t EGLint;
#endif
