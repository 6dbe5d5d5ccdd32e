/* C11 _Alignas on a field (clang also accepts it in C++ mode). */
struct CAligned {
    char tag;
    _Alignas(32) int value;
    short rest;
};
