// The switch to the per-thread-default-stream variants, for libraries that have them (see
// `loader.rs` for how the runtime's pieces fit together).

/// Whether functions with a per-thread-default-stream variant use it. Read once from
/// the environment variable, as C code decides it once at compile time.
pub fn per_thread_default_stream() -> bool {
    static SELECTED: OnceLock<bool> = OnceLock::new();
    *SELECTED.get_or_init(|| ::std::env::var(PER_THREAD_ENV_VAR).is_ok_and(|value| switched_on(&value)))
}

/// Whether an environment variable's value turns a switch on: a non-zero integer, as C reads it.
fn switched_on(value: &str) -> bool {
    value.trim().parse::<i64>().is_ok_and(|n| n != 0)
}
