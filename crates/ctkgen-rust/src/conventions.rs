//! The few names the generated runtime must know about the library it binds: the library file,
//! its entry-point lookup, its status codes. They are data, `headers/libraries/<library>.toml`,
//! shared with the Cython emitter and passed in by the caller, so the emitter logic never spells
//! a name of the library.

/// The bound library's conventions (see [`ctkgen_ir::LibraryConventions`] for every field).
pub use ctkgen_ir::LibraryConventions;
