/* A header that stops the compiler on purpose. */
#error "this header must not be read"
struct Unreached { int x; };
