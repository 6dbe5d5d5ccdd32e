/* __attribute__((aligned(N))) on a struct, through a macro, and on a typedef. */
#define CTK_ALIGN(n) __attribute__((aligned(n)))

struct __attribute__((aligned(64))) StructAligned {
    int x;
};

struct MacroAligned {
    int y;
} CTK_ALIGN(32);

typedef int AlignedInt __attribute__((aligned(16)));

struct HoldsAlignedTypedef {
    char c;
    AlignedInt value;
};
