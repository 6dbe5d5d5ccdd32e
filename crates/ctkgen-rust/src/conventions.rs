//! The few names the generated runtime must know about the driver it binds. They live here, as
//! data, so the emitter logic never spells a CUDA name.

/// Names of the driver library, its entry-point lookup and the status codes the generated
/// wrappers return when an entry point cannot be reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverConventions {
    /// Shared library opened on first use.
    pub library: String,
    /// What the library is called in messages ("CUDA driver not found (...)").
    pub library_description: String,
    /// Public name of the versioned entry-point lookup; its ABI symbol comes from the model.
    /// When the model lacks it, every function is found with `dlsym` alone.
    pub proc_address_function: String,
    /// Flag constant asking the lookup for the default (legacy stream) variant.
    pub proc_address_default_flag: String,
    /// Flag constant asking the lookup for the per-thread-default-stream variant.
    pub proc_address_per_thread_flag: String,
    /// Environment variable that selects the per-thread-default-stream variants (read once).
    pub per_thread_env_var: String,
    /// Enum constant meaning success; its enum is the status type of the API.
    pub success_constant: String,
    /// Status returned by a wrapper whose entry point the driver lacks.
    pub missing_function_constant: String,
    /// Status returned by every wrapper when the library itself cannot be loaded.
    pub missing_library_constant: String,
    /// Function the generated example and test call (with all-zero arguments) to show what a
    /// call does on the machine at hand.
    pub init_function: String,
}

impl Default for DriverConventions {
    /// The CUDA driver API as cuda.bindings resolves it.
    fn default() -> Self {
        DriverConventions {
            library: "libcuda.so.1".into(),
            library_description: "CUDA driver".into(),
            proc_address_function: "cuGetProcAddress".into(),
            proc_address_default_flag: "CU_GET_PROC_ADDRESS_DEFAULT".into(),
            proc_address_per_thread_flag: "CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM".into(),
            per_thread_env_var: "CUDA_API_PER_THREAD_DEFAULT_STREAM".into(),
            success_constant: "CUDA_SUCCESS".into(),
            missing_function_constant: "CUDA_ERROR_NOT_FOUND".into(),
            missing_library_constant: "CUDA_ERROR_NOT_INITIALIZED".into(),
            init_function: "cuInit".into(),
        }
    }
}
