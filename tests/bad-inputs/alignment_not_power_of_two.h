/* An alignment that is not a power of two: clang must refuse it, never round it. */
struct Odd {
    int value;
} __attribute__((aligned(24)));
