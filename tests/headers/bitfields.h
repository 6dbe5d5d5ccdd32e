/* Bitfields, including one that spans a 64-bit unit and a zero-width separator. */
struct Flags {
    unsigned int a : 3;
    unsigned int b : 5;
    unsigned int c : 24;
    unsigned long long d : 40;
    unsigned int : 0;
    unsigned char e : 1;
    int after;
};
