/* Pinned stand-in for <EGL/eglext.h>, used only when ctkgen reads CUDA headers with libclang
   and when the generated package is compiled. It declares the EGL extension handles cudaEGL.h
   uses, each an untyped pointer as in the real header. */
#ifndef CTKGEN_EGL_EGLEXT_H
#define CTKGEN_EGL_EGLEXT_H
#include <EGL/egl.h>
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
#endif
