//! Reading single members out of a wheel (a zip archive).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use zip::result::ZipError;
use zip::ZipArchive;

use crate::HeadersError;

/// No header or metadata file comes near this; a bigger member means a broken or hostile wheel.
const MAX_SMALL_MEMBER: u64 = 64 << 20;

pub(crate) struct Wheel {
    path: PathBuf,
    archive: ZipArchive<BufReader<File>>,
}

impl Wheel {
    pub(crate) fn open(path: &Path) -> Result<Wheel, HeadersError> {
        let file = File::open(path).map_err(|source| HeadersError::Read { path: path.to_path_buf(), source })?;
        let archive = ZipArchive::new(BufReader::new(file)).map_err(|error| corrupt(path, &error))?;
        Ok(Wheel { path: path.to_path_buf(), archive })
    }

    /// Member names, sorted.
    pub(crate) fn member_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.archive.file_names().map(str::to_string).collect();
        names.sort();
        names
    }

    /// A small member (header, metadata) read whole; its CRC is checked by the zip reader.
    pub(crate) fn read_small(&mut self, member: &str) -> Result<Vec<u8>, HeadersError> {
        self.read_member(member, MAX_SMALL_MEMBER)
    }

    /// Streams a member of any size into `dest`.
    pub(crate) fn extract_to(&mut self, member: &str, dest: &Path) -> Result<(), HeadersError> {
        let wheel = self.path.clone();
        let mut entry = self.entry(member)?;
        let mut out = File::create(dest).map_err(|source| HeadersError::Write { path: dest.to_path_buf(), source })?;
        std::io::copy(&mut entry, &mut out).map_err(|error| HeadersError::CorruptWheel {
            wheel,
            reason: format!("cannot extract {member}: {error}"),
        })?;
        out.sync_all().map_err(|source| HeadersError::Write { path: dest.to_path_buf(), source })
    }

    fn read_member(&mut self, member: &str, limit: u64) -> Result<Vec<u8>, HeadersError> {
        let path = self.path.clone();
        let entry = self.entry(member)?;
        if entry.size() > limit {
            return Err(HeadersError::CorruptWheel {
                wheel: path,
                reason: format!("{member} claims {} bytes", entry.size()),
            });
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.take(limit).read_to_end(&mut bytes).map_err(|error| HeadersError::CorruptWheel {
            wheel: path,
            reason: format!("cannot read {member}: {error}"),
        })?;
        Ok(bytes)
    }

    fn entry(&mut self, member: &str) -> Result<zip::read::ZipFile<'_, BufReader<File>>, HeadersError> {
        match self.archive.by_name(member) {
            Ok(entry) => Ok(entry),
            Err(ZipError::FileNotFound) => {
                Err(HeadersError::MissingMember { wheel: self.path.clone(), member: member.to_string() })
            }
            Err(error) => Err(corrupt(&self.path, &error)),
        }
    }
}

fn corrupt(path: &Path, error: &ZipError) -> HeadersError {
    HeadersError::CorruptWheel { wheel: path.to_path_buf(), reason: error.to_string().to_lowercase() }
}
