/* An empty struct is 0 bytes in C (GNU) and 1 byte in C++: the two readings disagree. */
struct Empty {
};
