/* Packed and over-aligned at once: C can say it, Rust's repr cannot. */
struct __attribute__((packed, aligned(8))) PackedAligned {
    char c;
    int i;
};
