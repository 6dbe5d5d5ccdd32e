/* Pinned stand-in for <GL/gl.h>, used only when ctkgen reads CUDA headers with libclang and
   when the generated package is compiled. It declares the OpenGL types cudaGL.h uses, as the
   real header does on Linux, and nothing else. */
#ifndef CTKGEN_GL_GL_H
#define CTKGEN_GL_GL_H
typedef unsigned int GLenum;
typedef unsigned int GLuint;
#endif
