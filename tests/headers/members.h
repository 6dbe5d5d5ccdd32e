/* Record members with a convention of their own: arrays counted by a sibling member (paired by
 * name, by the count's comment, or not at all), and byte arrays. */
typedef struct Point_st {
    int x, y;
} Point;

typedef struct Stream_st *Stream;

typedef struct Batch_st {
    Point *points;
    unsigned int numPoints;
    Stream *streams;
    /** Number of entries in streams. */
    unsigned long long total;
    /** One point, not a list: nothing counts it. */
    Point *origin;
    void *userData;
    unsigned char tag[8];
    char label[4];
} Batch;
