/* A member whose type is only declared: there is no layout to take. */
struct Forward;
struct HoldsForward {
    int before;
    struct Forward inner;
};
