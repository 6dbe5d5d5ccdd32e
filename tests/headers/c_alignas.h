/* C11 _Alignas on a field in the middle of a struct. C++ has no _Alignas, so there the
   spelling maps to alignas through a macro (the model records the spelling as written). */
#ifdef __cplusplus
#define _Alignas(n) alignas(n)
#endif

struct CAligned {
    char tag;
    _Alignas(32) int value;
    short rest;
};
