/* Alignment only in C++: read as C11 the type silently loses it. */
struct Descriptor {
#if defined(__cplusplus)
    alignas(64)
#endif
    unsigned long long words[8];
};
