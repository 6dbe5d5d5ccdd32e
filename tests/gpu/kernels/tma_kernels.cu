// TMA kernels for the GPU suite. Every launch is driven from the host through the generated
// bindings (cuModuleLoadData + cuLaunchKernel), so these kernels take tensor maps by value as
// __grid_constant__ parameters, exactly as a host program built on the bindings would pass them.
//
// Build: nvcc -arch=sm_90 -cubin -I <CTK include> -DEXPECTED_CUDA_VERSION=<CUDA_VERSION> ...
// EXPECTED_CUDA_VERSION makes the build fail when nvcc picked up another cuda.h than the one
// named with -I (nvcc also has its own), so the parameter layout really is that header's.
#include <cuda.h>
#include <stdint.h>

#ifndef EXPECTED_CUDA_VERSION
#error "define EXPECTED_CUDA_VERSION to the CUDA_VERSION of the cuda.h this build must use"
#endif
static_assert(CUDA_VERSION == EXPECTED_CUDA_VERSION, "nvcc included a different cuda.h than requested");

// Tile shapes shared with the host tests (tests/gpu/python/tma_suite.py, tests/gpu/rust).
constexpr int F32_TILE_W = 32;  // 128 bytes per row: a multiple of 16 as unswizzled TMA needs
constexpr int F32_TILE_H = 16;
constexpr int BF16_TILE_W = 64;  // 128 bytes per row: exactly the 128-byte swizzle span
constexpr int BF16_TILE_H = 32;
constexpr int IM2COL_PIXELS = 36;   // one whole 6x6 output image per column
constexpr int IM2COL_CHANNELS = 8;  // 32 bytes of f32 per pixel
constexpr int THREADS = 128;
// A TMA transfer that never lands must end the launch with an error, not hang the suite.
constexpr uint64_t WAIT_LIMIT_NS = 2000000000ull;

__device__ __forceinline__ uint32_t shared_address(const void* pointer) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ uint64_t global_timer_ns() {
    uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}

__device__ __forceinline__ void barrier_init(uint64_t* barrier) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void barrier_expect_bytes(uint64_t* barrier, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void barrier_wait_phase0(uint64_t* barrier) {
    const uint64_t start = global_timer_ns();
    uint32_t complete = 0;
    for (;;) {
        asm volatile(
            "{\n\t.reg .pred done;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 done, [%1], 0;\n\t"
            "selp.u32 %0, 1, 0, done;\n\t}"
            : "=r"(complete)
            : "r"(shared_address(barrier))
            : "memory");
        if (complete) return;
        if (global_timer_ns() - start > WAIT_LIMIT_NS) __trap();
    }
}

__device__ __forceinline__ void tma_load_2d(void* tile, const CUtensorMap* map, int x, int y, uint64_t* barrier) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(shared_address(tile)), "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(shared_address(barrier))
        : "memory");
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int x, int y, const void* tile) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(shared_address(tile))
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}

// Loads one tile through `map` at (x, y) into `tile` and waits for it in every thread.
__device__ __forceinline__ void load_tile(void* tile, uint32_t bytes, const CUtensorMap* map, int x, int y,
                                          uint64_t* barrier) {
    if (threadIdx.x == 0) {
        barrier_init(barrier);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        barrier_expect_bytes(barrier, bytes);
        tma_load_2d(tile, map, x, y, barrier);
    }
    barrier_wait_phase0(barrier);
}

// out = in * 2 + 1 for one 32x16 tile per block, loaded and stored with TMA. `loaded` receives
// the tile exactly as TMA delivered it (grid-major: [tile_y][tile_x][row][col]), so the host can
// check the out-of-bounds fill that the store then clips away.
extern "C" __global__ void __launch_bounds__(THREADS)
affine_f32(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map, float* loaded) {
    __shared__ alignas(128) float tile[F32_TILE_H][F32_TILE_W];
    __shared__ alignas(8) uint64_t barrier;
    const int x = blockIdx.x * F32_TILE_W;
    const int y = blockIdx.y * F32_TILE_H;
    load_tile(tile, sizeof(tile), &in_map, x, y, &barrier);

    float* dump = loaded + (static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x) * (F32_TILE_W * F32_TILE_H);
    for (int i = threadIdx.x; i < F32_TILE_W * F32_TILE_H; i += THREADS) {
        float* cell = &tile[0][0] + i;
        dump[i] = *cell;
        *cell = *cell * 2.0f + 1.0f;
    }
    tma_store_2d(&out_map, x, y, tile);
}

__device__ __forceinline__ uint16_t bf16_affine(uint16_t value) {
    const float widened = __uint_as_float(static_cast<uint32_t>(value) << 16);
    uint32_t bits = __float_as_uint(__fadd_rn(__fmul_rn(widened, 2.0f), 1.0f));
    bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest even, as the host reference does
    return static_cast<uint16_t>(bits >> 16);
}

// The same on bf16 with a 64x32 tile under 128-byte swizzle. The tile sits in dynamic shared
// memory rounded up to 1024 bytes (the swizzle pattern repeats every 8 rows of 128 bytes);
// launch with BF16_TILE_W * BF16_TILE_H * 2 + 1024 bytes. `raw` receives each block's shared
// tile byte for byte, still swizzled, so the host can check the pattern itself.
extern "C" __global__ void __launch_bounds__(THREADS)
affine_bf16_swizzle128(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
                       uint16_t* raw) {
    extern __shared__ uint8_t dynamic_shared[];
    __shared__ alignas(8) uint64_t barrier;
    const uint32_t base = shared_address(dynamic_shared);
    uint16_t* tile = reinterpret_cast<uint16_t*>(dynamic_shared + (((base + 1023u) & ~1023u) - base));
    constexpr int ELEMENTS = BF16_TILE_W * BF16_TILE_H;
    const int x = blockIdx.x * BF16_TILE_W;
    const int y = blockIdx.y * BF16_TILE_H;
    load_tile(tile, ELEMENTS * 2, &in_map, x, y, &barrier);

    uint16_t* dump = raw + (static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x) * ELEMENTS;
    for (int i = threadIdx.x; i < ELEMENTS; i += THREADS) {
        dump[i] = tile[i];
        tile[i] = bf16_affine(tile[i]);
    }
    tma_store_2d(&out_map, x, y, tile);
}

// Im2col on an NHWC f32 tensor: block (n, filter tap, channel half) loads one column of
// IM2COL_PIXELS pixels starting at the bounding box's corner (w, h) = (-1, -1) of image n with
// the tap's offsets, and writes it to columns[n][tap][channel_half][pixel][channel].
extern "C" __global__ void __launch_bounds__(THREADS)
im2col_f32(const __grid_constant__ CUtensorMap map, float* columns, int filter_w) {
    __shared__ alignas(128) float column[IM2COL_PIXELS][IM2COL_CHANNELS];
    __shared__ alignas(8) uint64_t barrier;
    const int n = blockIdx.x;
    const int tap = blockIdx.y;
    const int half = blockIdx.z;
    const uint16_t offset_w = static_cast<uint16_t>(tap % filter_w);
    const uint16_t offset_h = static_cast<uint16_t>(tap / filter_w);
    if (threadIdx.x == 0) {
        barrier_init(&barrier);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        barrier_expect_bytes(&barrier, sizeof(column));
        asm volatile(
            "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
            ::"r"(shared_address(column)), "l"(reinterpret_cast<uint64_t>(&map)), "r"(half * IM2COL_CHANNELS),
              "r"(-1), "r"(-1), "r"(n), "r"(shared_address(&barrier)), "h"(offset_w), "h"(offset_h)
            : "memory");
    }
    barrier_wait_phase0(&barrier);
    float* out = columns + ((static_cast<size_t>(n) * gridDim.y + tap) * gridDim.z + half) * (IM2COL_PIXELS * IM2COL_CHANNELS);
    for (int i = threadIdx.x; i < IM2COL_PIXELS * IM2COL_CHANNELS; i += THREADS) {
        out[i] = (&column[0][0])[i];
    }
}

// A map between two scalars, for launches with one packed parameter buffer: the map's offset
// is alignof(CUtensorMap) of the header this file was built with (64 for 12.x, 128 for 13.x).
// Loads the 32x16 f32 tile at the origin and writes tile + tag.
extern "C" __global__ void __launch_bounds__(THREADS)
packed_params(int tag, const __grid_constant__ CUtensorMap map, float* out) {
    __shared__ alignas(128) float tile[F32_TILE_H][F32_TILE_W];
    __shared__ alignas(8) uint64_t barrier;
    load_tile(tile, sizeof(tile), &map, 0, 0, &barrier);
    for (int i = threadIdx.x; i < F32_TILE_W * F32_TILE_H; i += THREADS) {
        out[i] = (&tile[0][0])[i] + static_cast<float>(tag);
    }
}

// Kernel-parameter forms (tests/gpu/python/tma_suite.py, kernel_params_*): the kernel writes
// back every value it received, so the host sees exactly what each form passed.
struct ParamPair {
    int x;
    float y;
};

extern "C" __global__ void record_params(int a, float b, unsigned long long c, ParamPair d, unsigned long long* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = static_cast<unsigned int>(a);
        out[1] = __float_as_uint(b);
        out[2] = c;
        out[3] = static_cast<unsigned int>(d.x);
        out[4] = __float_as_uint(d.y);
    }
}

// No parameters at all (kernelParams None): it marks a global the host reads back.
__device__ unsigned long long param_marker;

extern "C" __global__ void mark_without_params() {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        param_marker = 0x5eed5eedull;
    }
}

// Three pointer-sized words and a double, as received: the conversions of kernelParams values
// (a binding object declared c_void_p, a ctypes number of another type) read back on the host.
extern "C" __global__ void record_words(unsigned long long a, unsigned long long b, unsigned long long c, double d,
                                        unsigned long long* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = a;
        out[1] = b;
        out[2] = c;
        out[3] = static_cast<unsigned long long>(__double_as_longlong(d));
    }
}

// cuda-python's kernelParams test of the runtime's types: values typed None (an enum, a typedef of
// a primitive, a record with dim3's layout) written back through pointers to mapped host memory.
struct DimTriple {
    unsigned int x, y, z;
};

extern "C" __global__ void record_typed_none(int err, int* perr, unsigned long long surface,
                                             unsigned long long* psurface, DimTriple dim, DimTriple* pdim) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        *perr = err;
        *psurface = surface;
        pdim->x = dim.x;
        pdim->y = dim.y;
        pdim->z = dim.z;
    }
}
