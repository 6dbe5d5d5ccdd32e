/* Pinned stand-in for <vdpau/vdpau.h>, used only when ctkgen reads CUDA headers with libclang
   and when the generated package is compiled. It declares the VDPAU types cudaVDPAU.h uses, as
   the real header does: 32-bit object handles, and the entry-point lookup as a function type
   (with the status enum and function id it is written in). */
#ifndef CTKGEN_VDPAU_VDPAU_H
#define CTKGEN_VDPAU_VDPAU_H
#include <stdint.h>

typedef enum {
    VDP_STATUS_OK = 0,
    VDP_STATUS_NO_IMPLEMENTATION,
    VDP_STATUS_DISPLAY_PREEMPTED,
    VDP_STATUS_INVALID_HANDLE,
    VDP_STATUS_INVALID_POINTER,
    VDP_STATUS_INVALID_CHROMA_TYPE,
    VDP_STATUS_INVALID_Y_CB_CR_FORMAT,
    VDP_STATUS_INVALID_RGBA_FORMAT,
    VDP_STATUS_INVALID_INDEXED_FORMAT,
    VDP_STATUS_INVALID_COLOR_STANDARD,
    VDP_STATUS_INVALID_COLOR_TABLE_FORMAT,
    VDP_STATUS_INVALID_BLEND_FACTOR,
    VDP_STATUS_INVALID_BLEND_EQUATION,
    VDP_STATUS_INVALID_FLAG,
    VDP_STATUS_INVALID_DECODER_PROFILE,
    VDP_STATUS_INVALID_VIDEO_MIXER_FEATURE,
    VDP_STATUS_INVALID_VIDEO_MIXER_PARAMETER,
    VDP_STATUS_INVALID_VIDEO_MIXER_ATTRIBUTE,
    VDP_STATUS_INVALID_VIDEO_MIXER_PICTURE_STRUCTURE,
    VDP_STATUS_INVALID_FUNC_ID,
    VDP_STATUS_INVALID_SIZE,
    VDP_STATUS_INVALID_VALUE,
    VDP_STATUS_INVALID_STRUCT_VERSION,
    VDP_STATUS_RESOURCES,
    VDP_STATUS_HANDLE_DEVICE_MISMATCH,
    VDP_STATUS_ERROR
} VdpStatus;

typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;

typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);
#endif
