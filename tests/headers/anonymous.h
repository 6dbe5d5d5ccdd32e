/* Untagged records: a named member, an anonymous member, nested, and a typedef name. */
struct Resource {
    int kind;
    union {
        struct {
            void *handle;
        } array;
        struct {
            void *ptr;
            unsigned long long size;
        } linear;
        int reserved[32];
    } res;
    union {
        unsigned int value;
        unsigned long long value64;
    };
    struct {
        short x, y;
    } points[2];
};

typedef struct {
    int width;
    int height;
} Extent;
