/* Over-alignment propagates: through a member, an array member, and a union. */
#ifdef __cplusplus
#define ALIGN_TO(n) alignas(n)
#else
#define ALIGN_TO(n) _Alignas(n)
#endif

struct Descriptor {
    ALIGN_TO(128) unsigned long long opaque[16];
};

struct Holder {
    int tag;
    struct Descriptor desc;
};

struct ArrayOfDescriptors {
    struct Descriptor items[3];
    char trailer;
};

union MaybeDescriptor {
    struct Descriptor desc;
    int raw;
};
