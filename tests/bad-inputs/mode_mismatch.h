/* A record that C and C++ lay out differently: the modes must agree, so this is refused. */
struct Differs {
    int a;
#ifdef __cplusplus
    long b;
#endif
};
