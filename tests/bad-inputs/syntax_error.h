struct Broken {
    int x
};
