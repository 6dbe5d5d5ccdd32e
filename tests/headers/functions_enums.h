/* Functions, renames, enums with wide values, constant and cast macros. */
#include <stddef.h>
typedef struct Ctx_st *Ctx;
typedef int Device;

typedef enum Result_enum {
    RESULT_OK = 0,
    RESULT_FAIL = 1,
    RESULT_UNKNOWN = 999
} Result;

typedef enum Flags_enum {
    FLAG_NONE = 0x0,
    /** The first flag */
    FLAG_A = 0x1,
    FLAG_B = 0x2,
    FLAG_C = 0x4 /**< The last flag */
} Flags;

enum Wide {
    WIDE_NEG = -5,
    WIDE_BIG = 0x7fffffffffffffffLL
};

#define DEVICE_CPU ((Device)-1)
#define STREAM_LEGACY ((Ctx)0x1)
#define PARAM_END ((void *)0x00)
#define MAX_NAME 256
#define HALF 0.5f
#define VERSION_STRING "1.2"
/* A member's second name, and one used in arithmetic (a plain integer then). */
#define FLAG_DEFAULT FLAG_B
#define FLAG_AB (FLAG_A | FLAG_B)

#define ctxCreate ctxCreate_v2

/**
 * \brief Creates a context
 *
 * \param pctx  - Returned context handle
 * \param flags - Creation flags
 * \param dev   - Device
 *
 * \return ::RESULT_OK
 */
Result ctxCreate(Ctx *pctx, unsigned int flags, Device dev);
Result ctxDestroy(Ctx ctx);
/** \brief Pauses a context */
#ifndef FIXTURE_NO_INLINE
Result ctxPause(Ctx ctx);
#endif
/* \brief Not a doc comment: the next declaration has none */
#if 1
Result ctxResume(Ctx ctx);
#endif
typedef void (*Callback)(void *userData, Result status);
Result launch(Ctx ctx, Callback fn, void **params, size_t count);
