/* Packed records: no padding, alignment 1. */
struct __attribute__((packed)) Packed {
    char c;
    int i;
    long long l;
};

#pragma pack(push, 2)
struct PragmaPacked {
    char c;
    int i;
};
#pragma pack(pop)
