//! Where ctkgen's headers come from, and proof that they are the right ones.
//!
//! The catalogue (`headers/ctk.toml`) names, for every CUDA Toolkit release, the runtime wheel on
//! the Python package index that carries its main headers, and the companion wheels that carry
//! the rest (each bound library's description names its wheels), with the sha256 of
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

pub use cache::{
    fetch, fetch_static_library, fetch_static_library_with, fetch_with, Cache, ExtraHeaderPath, HeaderSet,
};
pub use catalogue::{Catalogue, Companion, Release, StaticLibraryPin};
pub use cuda_home::from_cuda_home;
pub use error::HeadersError;
pub use libclang::{locate_libclang, locate_libclang_with, LIBCLANG_OLDEST_MAJOR, LIBCLANG_WHEEL_VERSION};
pub use library::{package_conventions, LibraryError, LibraryFiles};
pub use pip::Pip;
pub use refresh::{refresh_catalogue, RefreshPlan};

/// Which headers of a release or a toolkit make up one library: named by the library's
/// description, never by this crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryHeaders {
    /// The main header's file name.
    pub main: String,
    /// The header of entry-point typedefs, when the library has one.
    pub typedefs: Option<String>,
    /// The macro that holds the header's version, when it has one.
    pub version_macro: Option<String>,
}
