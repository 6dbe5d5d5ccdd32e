/* A member type the model has no form for: refused naming the position, not guessed. */
struct Complex {
    _Complex double z;
};
