//! Tensor-map tests of the generated Rust crate (`cuda-driver-sys`) on a Hopper GPU.
//!
//!     tma-rust-tests --cubin tma_kernels-13.1.cubin --map-align 128 --json rust.json
//!
//! libcuda is loaded by the crate at run time, so this binary runs on a host without a Rust
//! toolchain. It is built once per toolkit, choosing the crate's feature
//! (`--features cuda-driver-sys/cuda-13010`); the kernels are those of
//! tests/gpu/kernels/tma_kernels.cu, built against that toolkit's headers, and `--map-align` is
//! the alignment its header gives `CUtensorMap`.

use std::ffi::{c_void, CString};
use std::fmt::Write as _;
use std::mem::{align_of, size_of};
use std::process::ExitCode;
use std::ptr::null_mut;

use cuda_driver_sys::*;

// Shapes compiled into affine_f32 (tma_kernels.cu).
const TILE_W: usize = 32;
const TILE_H: usize = 16;
const THREADS: u32 = 128;
const POISON_BITS: u32 = 0x7FBA_DBAD;

type Outcome = Result<String, String>;

fn check(code: CUresult, what: &str) -> Result<(), String> {
    if code == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} returned {code:?}"))
    }
}

/// xorshift64*, seeded from the clock and the process id: fresh inputs every run.
struct Random(u64);

impl Random {
    fn fresh() -> Random {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
        Random((nanos ^ (u64::from(std::process::id()) << 32)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [-1000, 1000).
    fn value(&mut self) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32) * 2000.0 - 1000.0
    }
}

struct Gpu {
    module: CUmodule,
    allocations: Vec<CUdeviceptr>,
}

impl Gpu {
    fn open(cubin: &[u8]) -> Result<Gpu, String> {
        unsafe {
            check(cuInit(0), "cuInit")?;
            let mut device: CUdevice = 0;
            check(cuDeviceGet(&mut device, 0), "cuDeviceGet")?;
            let mut context: CUcontext = null_mut();
            check(cuDevicePrimaryCtxRetain(&mut context, device), "cuDevicePrimaryCtxRetain")?;
            check(cuCtxSetCurrent(context), "cuCtxSetCurrent")?;
            let mut module: CUmodule = null_mut();
            check(cuModuleLoadData(&mut module, cubin.as_ptr().cast()), "cuModuleLoadData")?;
            Ok(Gpu { module, allocations: Vec::new() })
        }
    }

    fn function(&self, name: &str) -> Result<CUfunction, String> {
        let name_c = CString::new(name).expect("kernel names have no NUL");
        let mut function: CUfunction = null_mut();
        check(unsafe { cuModuleGetFunction(&mut function, self.module, name_c.as_ptr()) }, "cuModuleGetFunction")?;
        Ok(function)
    }

    fn alloc(&mut self, bytes: usize) -> Result<CUdeviceptr, String> {
        let mut pointer: CUdeviceptr = 0;
        check(unsafe { cuMemAlloc(&mut pointer, bytes) }, "cuMemAlloc")?;
        self.allocations.push(pointer);
        Ok(pointer)
    }

    fn write<T: Copy>(&self, pointer: CUdeviceptr, data: &[T]) -> Result<(), String> {
        check(unsafe { cuMemcpyHtoD(pointer, data.as_ptr().cast(), std::mem::size_of_val(data)) }, "cuMemcpyHtoD")
    }

    fn read_f32(&self, pointer: CUdeviceptr, count: usize) -> Result<Vec<f32>, String> {
        let mut data = vec![0f32; count];
        check(unsafe { cuMemcpyDtoH(data.as_mut_ptr().cast(), pointer, count * 4) }, "cuMemcpyDtoH")?;
        Ok(data)
    }

    fn poison(&self, pointer: CUdeviceptr, count: usize) -> Result<(), String> {
        self.write(pointer, &vec![POISON_BITS; count])
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        unsafe {
            for pointer in self.allocations.drain(..) {
                cuMemFree(pointer);
            }
            cuModuleUnload(self.module);
        }
    }
}

/// Encodes a 2-D f32 map over `pointer` (height x width, packed rows) with the given box.
fn encode_f32(pointer: u64, width: u64, height: u64, box_dim: [u32; 2], element_strides: [u32; 2]) -> (CUresult, CUtensorMap) {
    let mut map = CUtensorMap::default();
    let dims: [cuuint64_t; 2] = [width, height];
    let strides: [cuuint64_t; 1] = [width * 4];
    let code = unsafe {
        cuTensorMapEncodeTiled(
            &mut map,
            CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            2,
            pointer as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            box_dim.as_ptr(),
            element_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    (code, map)
}

/// affine_f32 over one tensor whose edge tiles run past its bounds.
struct RoundTrip {
    width: usize,
    height: usize,
    grid: (u32, u32),
    function: CUfunction,
    loaded: CUdeviceptr,
}

impl RoundTrip {
    fn new(gpu: &mut Gpu, width: usize, height: usize) -> Result<RoundTrip, String> {
        let grid = (width.div_ceil(TILE_W) as u32, height.div_ceil(TILE_H) as u32);
        let loaded = gpu.alloc(grid.0 as usize * grid.1 as usize * TILE_W * TILE_H * 4)?;
        Ok(RoundTrip { width, height, grid, function: gpu.function("affine_f32")?, loaded })
    }

    fn launch(&self, in_map: &CUtensorMap, out_map: &CUtensorMap) -> Result<(), String> {
        let mut in_value = *in_map;
        let mut out_value = *out_map;
        let mut loaded = self.loaded;
        let mut params: [*mut c_void; 3] = [
            (&mut in_value as *mut CUtensorMap).cast(),
            (&mut out_value as *mut CUtensorMap).cast(),
            (&mut loaded as *mut CUdeviceptr).cast(),
        ];
        check(
            unsafe { cuLaunchKernel(self.function, self.grid.0, self.grid.1, 1, THREADS, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) },
            "cuLaunchKernel",
        )?;
        check(unsafe { cuCtxSynchronize() }, "cuCtxSynchronize after the launch")
    }

    /// Poisons `output`, launches and compares every element with source * 2 + 1.
    fn run(&self, gpu: &Gpu, in_map: &CUtensorMap, out_map: &CUtensorMap, source: &[f32], output: CUdeviceptr) -> Result<(), String> {
        gpu.poison(output, source.len())?;
        self.launch(in_map, out_map)?;
        let got = gpu.read_f32(output, source.len())?;
        let mismatches: Vec<usize> = (0..source.len()).filter(|&i| got[i].to_bits() != (source[i] * 2.0 + 1.0).to_bits()).collect();
        match mismatches.first() {
            None => Ok(()),
            Some(&i) => Err(format!(
                "{} of {} elements differ, first at (y={}, x={}): got {:#x}, want {:#x}",
                mismatches.len(),
                source.len(),
                i / self.width,
                i % self.width,
                got[i].to_bits(),
                (source[i] * 2.0 + 1.0).to_bits()
            )),
        }
    }

    fn random_input(&self, random: &mut Random) -> Vec<f32> {
        (0..self.width * self.height).map(|_| random.value()).collect()
    }
}

const WIDTH: usize = 100;
const HEIGHT: usize = 70;

fn round_trip(cubin: &[u8]) -> Outcome {
    let mut gpu = Gpu::open(cubin)?;
    let case = RoundTrip::new(&mut gpu, WIDTH, HEIGHT)?;
    let source = case.random_input(&mut Random::fresh());
    let input = gpu.alloc(source.len() * 4)?;
    let output = gpu.alloc(source.len() * 4)?;
    gpu.write(input, &source)?;
    let (code, in_map) = encode_f32(input, WIDTH as u64, HEIGHT as u64, [TILE_W as u32, TILE_H as u32], [1, 1]);
    check(code, "cuTensorMapEncodeTiled(input)")?;
    let (code, out_map) = encode_f32(output, WIDTH as u64, HEIGHT as u64, [TILE_W as u32, TILE_H as u32], [1, 1]);
    check(code, "cuTensorMapEncodeTiled(output)")?;
    case.run(&gpu, &in_map, &out_map, &source, output)?;
    Ok(format!("{HEIGHT}x{WIDTH} f32, grid {:?}", case.grid))
}

fn replace_address(cubin: &[u8]) -> Outcome {
    let mut gpu = Gpu::open(cubin)?;
    let case = RoundTrip::new(&mut gpu, WIDTH, HEIGHT)?;
    let mut random = Random::fresh();
    let first = case.random_input(&mut random);
    let second = case.random_input(&mut random);
    let buffers: Vec<CUdeviceptr> = (0..4).map(|_| gpu.alloc(first.len() * 4)).collect::<Result<_, _>>()?;
    gpu.write(buffers[0], &first)?;
    gpu.write(buffers[2], &second)?;
    let (code, mut in_map) = encode_f32(buffers[0], WIDTH as u64, HEIGHT as u64, [TILE_W as u32, TILE_H as u32], [1, 1]);
    check(code, "cuTensorMapEncodeTiled(input)")?;
    let (code, mut out_map) = encode_f32(buffers[1], WIDTH as u64, HEIGHT as u64, [TILE_W as u32, TILE_H as u32], [1, 1]);
    check(code, "cuTensorMapEncodeTiled(output)")?;
    case.run(&gpu, &in_map, &out_map, &first, buffers[1]).map_err(|e| format!("first launch: {e}"))?;
    let first_output = gpu.read_f32(buffers[1], first.len())?;

    check(unsafe { cuTensorMapReplaceAddress(&mut in_map, buffers[2] as *mut c_void) }, "cuTensorMapReplaceAddress(input)")?;
    check(unsafe { cuTensorMapReplaceAddress(&mut out_map, buffers[3] as *mut c_void) }, "cuTensorMapReplaceAddress(output)")?;
    case.run(&gpu, &in_map, &out_map, &second, buffers[3]).map_err(|e| format!("after replace: {e}"))?;
    let untouched = gpu.read_f32(buffers[1], first.len())?;
    if untouched.iter().zip(&first_output).any(|(a, b)| a.to_bits() != b.to_bits()) {
        return Err("the first output changed after the maps were retargeted".into());
    }
    Ok("both maps retargeted, relaunch correct, old output untouched".into())
}

fn negative_control_swapped_box(cubin: &[u8]) -> Outcome {
    let mut gpu = Gpu::open(cubin)?;
    let case = RoundTrip::new(&mut gpu, WIDTH, HEIGHT)?;
    let source = case.random_input(&mut Random::fresh());
    let input = gpu.alloc(source.len() * 4)?;
    let output = gpu.alloc(source.len() * 4)?;
    gpu.write(input, &source)?;
    // Same bytes per tile as the kernel expects, wrong shape: the barrier completes, the data is wrong.
    let (code, in_map) = encode_f32(input, WIDTH as u64, HEIGHT as u64, [TILE_H as u32, TILE_W as u32], [1, 1]);
    check(code, "cuTensorMapEncodeTiled(input, swapped box)")?;
    let (code, out_map) = encode_f32(output, WIDTH as u64, HEIGHT as u64, [TILE_W as u32, TILE_H as u32], [1, 1]);
    check(code, "cuTensorMapEncodeTiled(output)")?;
    match case.run(&gpu, &in_map, &out_map, &source, output) {
        Ok(()) => Err("the round-trip check passed with a wrong box size".into()),
        Err(detected) => Ok(format!("detected: {detected}")),
    }
}

/// One parameter rule broken alone: the baseline succeeds, the violation gives INVALID_VALUE.
fn rule(cubin: &[u8], offset: u64, box_dim: [u32; 2], element_strides: [u32; 2]) -> Outcome {
    let mut gpu = Gpu::open(cubin)?;
    let pointer = gpu.alloc(1 << 20)?;
    let (code, _) = encode_f32(pointer, WIDTH as u64, HEIGHT as u64, [32, 16], [1, 1]);
    check(code, "baseline (no rule broken)")?;
    let (code, _) = encode_f32(pointer + offset, WIDTH as u64, HEIGHT as u64, box_dim, element_strides);
    if code == CUresult::CUDA_ERROR_INVALID_VALUE {
        Ok(format!("baseline CUDA_SUCCESS, violation {code:?}"))
    } else {
        Err(format!("returned {code:?}, expected CUDA_ERROR_INVALID_VALUE"))
    }
}

fn map_alignment(expected: usize) -> Outcome {
    let maps: Vec<Box<CUtensorMap>> = (0..1000).map(|_| Box::default()).collect();
    let align = align_of::<CUtensorMap>();
    if align != expected {
        return Err(format!("align_of::<CUtensorMap>() = {align}, the header gives {expected}"));
    }
    if let Some(map) = maps.iter().find(|m| !(&***m as *const CUtensorMap as usize).is_multiple_of(align)) {
        return Err(format!("CUtensorMap at {:p} is not {align}-aligned", &**map));
    }
    Ok(format!("align_of::<CUtensorMap>() = {align}, size {}", size_of::<CUtensorMap>()))
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).expect("writing to a String"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let value_of = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let usage = "usage: tma-rust-tests --cubin FILE --map-align N --json FILE";
    let (Some(cubin_path), Some(json_path)) = (value_of("--cubin"), value_of("--json")) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let Some(map_align) = value_of("--map-align").and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let cubin = match std::fs::read(&cubin_path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("cannot read {cubin_path}: {error}");
            return ExitCode::from(2);
        }
    };
    if let Err(error) = library_status() {
        eprintln!("{error}");
        return ExitCode::from(2);
    }

    type Test = (&'static str, &'static str, Box<dyn Fn(&[u8]) -> Outcome>);
    let tests: Vec<Test> = vec![
        ("map_alignment", "align_of::<CUtensorMap>() is the header's; 1000 boxed values sit at it", Box::new(move |_| map_alignment(map_align))),
        ("roundtrip_f32", "2-D f32 round trip through TMA, edge tiles past the bounds", Box::new(round_trip)),
        ("replace_address", "cuTensorMapReplaceAddress to new buffers, relaunch", Box::new(replace_address)),
        ("rule_address_not_16_aligned", "globalAddress + 8: INVALID_VALUE", Box::new(|c| rule(c, 8, [32, 16], [1, 1]))),
        ("rule_box_dim_257", "boxDim[1] = 257: INVALID_VALUE", Box::new(|c| rule(c, 0, [32, 257], [1, 1]))),
        ("rule_element_stride_nine", "elementStrides[1] = 9: INVALID_VALUE", Box::new(|c| rule(c, 0, [32, 16], [1, 9]))),
        ("negative_control_swapped_box", "a 16x32 input box where the kernel expects 32x16 is caught", Box::new(negative_control_swapped_box)),
    ];
    let mut records = Vec::new();
    let mut failed = 0;
    for (name, doc, test) in &tests {
        let (outcome, detail) = match test(&cubin) {
            Ok(detail) => ("pass", detail),
            Err(detail) => {
                failed += 1;
                ("fail", detail)
            }
        };
        println!("{outcome}: {name}: {detail}");
        records.push(format!(
            "{{\"name\": {}, \"doc\": {}, \"outcome\": \"{outcome}\", \"detail\": {}}}",
            json_string(name),
            json_string(doc),
            json_string(&detail)
        ));
    }
    let json = format!("{{\"label\": \"rust\", \"tests\": [\n{}\n]}}\n", records.join(",\n"));
    if let Err(error) = std::fs::write(&json_path, json) {
        eprintln!("cannot write {json_path}: {error}");
        return ExitCode::from(2);
    }
    println!("rust: {} of {} passed", tests.len() - failed, tests.len());
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
