//! GPU smoke test of a generated crate (named `cuda_driver_sys`): resolves real entry points
//! through the driver, runs a memset and a copy, and encodes a tensor map in a `Box`, checking
//! its alignment. Not part of `cargo test` (no GPU there); build it against a generated crate
//! with `gpu/run.sh` and run the binary on a machine with a driver.

use cuda_driver_sys as cu;
use std::ffi::{c_void, CStr};

fn check(what: &str, status: cu::CUresult) {
    println!("{what}: {status:?}");
    assert_eq!(status, cu::CUresult::CUDA_SUCCESS, "{what}");
}

fn main() {
    cu::library_status().expect("driver loads");
    println!("per-thread default stream: {}", cu::per_thread_default_stream());
    unsafe {
        check("cuInit", cu::cuInit(0));
        let mut version = 0;
        check("cuDriverGetVersion", cu::cuDriverGetVersion(&mut version));
        println!("driver version: {version}");
        let mut device = 0;
        check("cuDeviceGet", cu::cuDeviceGet(&mut device, 0));
        let mut name = [0 as std::ffi::c_char; 128];
        check("cuDeviceGetName", cu::cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, device));
        println!("device: {}", CStr::from_ptr(name.as_ptr()).to_string_lossy());
        let mut context = std::ptr::null_mut();
        check("cuDevicePrimaryCtxRetain", cu::cuDevicePrimaryCtxRetain(&mut context, device));
        check("cuCtxSetCurrent", cu::cuCtxSetCurrent(context));

        // Call cost through the lazy table: the first call resolves the entry point.
        let mut flags = 0;
        let started = std::time::Instant::now();
        check("cuCtxGetFlags (first call)", cu::cuCtxGetFlags(&mut flags));
        let first = started.elapsed();
        let started = std::time::Instant::now();
        check("cuCtxGetFlags (second call)", cu::cuCtxGetFlags(&mut flags));
        println!("first call {first:?} (resolution included), second {:?}", started.elapsed());
        let calls = 1_000_000;
        let mut current = 0;
        let started = std::time::Instant::now();
        for _ in 0..calls {
            cu::cuCtxGetDevice(&mut current);
        }
        println!("cuCtxGetDevice: {:.1} ns per call", started.elapsed().as_nanos() as f64 / calls as f64);

        // Memset on the default stream, then copy back and compare every word.
        let words = 1 << 20;
        let mut buffer: cu::CUdeviceptr = 0;
        check("cuMemAlloc", cu::cuMemAlloc(&mut buffer, words * 4));
        check("cuMemsetD32Async", cu::cuMemsetD32Async(buffer, 0x5eed_f00d, words, std::ptr::null_mut()));
        check("cuStreamSynchronize", cu::cuStreamSynchronize(std::ptr::null_mut()));
        let mut host = vec![0u32; words];
        check("cuMemcpyDtoH", cu::cuMemcpyDtoH(host.as_mut_ptr().cast::<c_void>(), buffer, words * 4));
        assert!(host.iter().all(|&w| w == 0x5eed_f00d), "memset result");
        println!("memset/copy of {words} words: ok");

        // A tensor map in a Box: the allocator honours the header's alignment.
        let mut maps: Vec<Box<cu::CUtensorMap>> = (0..16).map(|_| Box::default()).collect();
        let align = std::mem::align_of::<cu::CUtensorMap>();
        println!("align_of::<CUtensorMap>() = {align}");
        for map in &maps {
            assert_eq!((&**map as *const cu::CUtensorMap as usize) % align, 0);
        }
        let dims: [cu::cuuint64_t; 2] = [1024, 1024];
        let strides: [cu::cuuint64_t; 1] = [1024 * 4];
        let boxes: [cu::cuuint32_t; 2] = [32, 32];
        let element_strides: [cu::cuuint32_t; 2] = [1, 1];
        check(
            "cuTensorMapEncodeTiled",
            cu::cuTensorMapEncodeTiled(
                &mut *maps[0],
                cu::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                2,
                buffer as *mut c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                element_strides.as_ptr(),
                cu::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                cu::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
                cu::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
                cu::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            ),
        );
        let written = maps[0].opaque.iter().filter(|&&w| w != 0).count();
        println!("tensor map words written: {written}");
        assert!(written > 0);
        // Invalid parameters come back as a status, not a crash.
        let bad = cu::cuTensorMapEncodeTiled(
            &mut *maps[1],
            cu::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            9,
            buffer as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            cu::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            cu::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            cu::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            cu::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        );
        println!("cuTensorMapEncodeTiled(rank 9): {bad:?}");
        assert_eq!(bad, cu::CUresult::CUDA_ERROR_INVALID_VALUE);
        check("cuMemFree", cu::cuMemFree(buffer));
    }
    for name in ["cuCtxCreate", "cuTensorMapEncodeIm2colWide", "cuMemcpyAsync", "noSuchFunctionInAnyDriver"] {
        println!("function_available({name}) = {:?}", cu::function_available(name));
    }
    assert_eq!(cu::function_available("noSuchFunctionInAnyDriver"), Ok(false));
    println!("smoke: ok");
}
