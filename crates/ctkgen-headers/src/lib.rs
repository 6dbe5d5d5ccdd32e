//! Where ctkgen's headers come from, and proof that they are the right ones.
//!
//! The catalogue (`headers/ctk.toml`) names, for every CUDA Toolkit release, the runtime wheel on
//! the Python package index that carries its `cuda.h`, `cudaTypedefs.h` and other driver
//! headers, and the companion wheels that carry the rest (`cudaProfiler.h`), with the sha256 of
//! every wheel and header. [`fetch`] downloads that wheel through the user's own `pip` (so
//! their index settings and proxies apply), checks every hash, and keeps the headers in a local
//! cache that later runs read without touching the network. [`from_cuda_home`] reads the headers
//! of an installed toolkit instead, and [`locate_libclang`] finds (or provisions) the libclang
//! that parses them. [`refresh_catalogue`] rebuilds the catalogue from the index.

mod cache;
mod catalogue;
mod cuda_home;
mod error;
mod hash;
mod libclang;
mod library;
mod pip;
mod refresh;
mod wheel;

pub use cache::{fetch, fetch_with, Cache, ExtraHeaderPath, HeaderSet};
pub use catalogue::{Catalogue, Companion, Release};
pub use cuda_home::from_cuda_home;
pub use error::HeadersError;
pub use libclang::{locate_libclang, locate_libclang_with, LIBCLANG_OLDEST_MAJOR, LIBCLANG_WHEEL_VERSION};
pub use library::{LibraryError, LibraryFiles};
pub use pip::Pip;
pub use refresh::refresh_catalogue;

/// File name of the main driver header.
pub const MAIN_HEADER: &str = "cuda.h";
/// File name of the header with the `PFN_*` entry-point typedefs.
pub const TYPEDEFS_HEADER: &str = "cudaTypedefs.h";
