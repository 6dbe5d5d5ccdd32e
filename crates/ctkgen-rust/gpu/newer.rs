//! For a crate generated from a header newer than the installed driver: the crate loads, and
//! functions the driver lacks fail when called, with `CUDA_ERROR_NOT_FOUND`, never at load.
//! Built against the 13.5 crate by `gpu/run.sh IR.json gpu/newer.rs OUT`.

use cuda_driver_sys as cu;

fn main() {
    unsafe {
        assert_eq!(cu::cuInit(0), cu::CUresult::CUDA_SUCCESS);
        let mut version = 0;
        assert_eq!(cu::cuDriverGetVersion(&mut version), cu::CUresult::CUDA_SUCCESS);
        println!("driver version: {version}");
        // (name, CUDA version it first appeared in, a call with harmless arguments)
        let mut count = 0usize;
        let mut id = 0u32;
        let calls: [(&str, i32, cu::CUresult); 2] = [
            ("cuGraphGetId", 13010, cu::cuGraphGetId(std::ptr::null_mut(), &mut id)),
            ("cuDeviceGetCliqueCount", 13040, cu::cuDeviceGetCliqueCount(&mut count, 0)),
        ];
        for (name, since, status) in calls {
            let available = cu::function_available(name);
            println!("{name} (since {since}): available {available:?}, call returned {status:?}");
            if version < since {
                assert_eq!(available, Ok(false));
                assert_eq!(status, cu::CUresult::CUDA_ERROR_NOT_FOUND);
            }
        }
    }
    println!("newer: ok");
}
