/* A field aligned with the standard specifier of each language, guarded as cuda.h does. */
typedef unsigned long long u64;

typedef struct FieldAligned_st {
#if defined(__cplusplus) && (__cplusplus >= 201103L)
    alignas(64)
#elif __STDC_VERSION__ >= 201112L
    _Alignas(64)
#endif
    u64 words[4];
    int tail;
} FieldAligned;
