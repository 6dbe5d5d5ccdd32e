//! The process's allocator: small blocks from mimalloc, the rest from glibc.
//!
//! Most of the generator's allocations are small and short-lived (identifiers, tokens, syntax
//! nodes, template values), and glibc spends about a quarter of the run's instructions on them.
//! mimalloc serves them faster, but keeps more memory per thread for large blocks, which would
//! raise the peak past bindgen's. So blocks up to [`SMALL`] bytes go to mimalloc and larger ones
//! (output buffers, vectors that grow) to glibc, tuned in `main.rs`. Paired runs of one CTK,
//! both languages: 9-12% less wall time, peak 52.1 -> 51.0-51.3 MiB (BENCHMARKS.md). The choice
//! depends only on a block's layout, which Rust passes unchanged to every call for that block.

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

/// The largest block mimalloc serves (128 and 512 measured the same speed; 512 peaked 2.7 MiB
/// higher, 1024 6 MiB).
const SMALL: usize = 256;

pub struct SplitAllocator;

fn is_small(layout: &Layout) -> bool {
    layout.size() <= SMALL && layout.align() <= 16
}

// SAFETY: each block is served and released by the same allocator, chosen by its layout, and a
// block that changes side on `realloc` is copied and released by the allocator that served it.
unsafe impl GlobalAlloc for SplitAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_small(&layout) {
            MiMalloc.alloc(layout)
        } else {
            System.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_small(&layout) {
            MiMalloc.alloc_zeroed(layout)
        } else {
            System.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_small(&layout) {
            MiMalloc.dealloc(ptr, layout)
        } else {
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded up to `layout.align()`, fits isize.
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        match (is_small(&layout), is_small(&new_layout)) {
            (true, true) => MiMalloc.realloc(ptr, layout, new_size),
            (false, false) => System.realloc(ptr, layout, new_size),
            _ => {
                let moved = self.alloc(new_layout);
                if !moved.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                moved
            }
        }
    }
}
