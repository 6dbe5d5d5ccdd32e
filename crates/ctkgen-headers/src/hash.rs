//! sha256 as lowercase hex, the spelling the catalogue uses.

use std::fs::File;
use std::io;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::HeadersError;

pub(crate) fn sha256_bytes(bytes: &[u8]) -> String {
    to_hex(&Sha256::digest(bytes))
}

/// Streams the file, so multi-megabyte wheels are never held in memory.
pub(crate) fn sha256_file(path: &Path) -> Result<String, HeadersError> {
    let read_error = |source| HeadersError::Read { path: path.to_path_buf(), source };
    let mut file = File::open(path).map_err(read_error)?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher).map_err(read_error)?;
    Ok(to_hex(&hasher.finalize()))
}

pub(crate) fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn to_hex(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(digest.len() * 2);
    for byte in digest {
        hex.push(DIGITS[usize::from(byte >> 4)] as char);
        hex.push(DIGITS[usize::from(byte & 0xf)] as char);
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_the_empty_string() {
        assert_eq!(sha256_bytes(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert!(is_sha256_hex(&sha256_bytes(b"cuda")));
        assert!(!is_sha256_hex("E3B0"));
    }
}
