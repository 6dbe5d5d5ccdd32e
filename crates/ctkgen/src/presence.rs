//! Which libraries a source has: a catalogue release may not ship every described library.

use crate::{HeaderSource, Library, PipelineError, Release, Workspace};

/// Whether `source` has `library`: always for a toolkit or a lone header (what they lack is an
/// error when read); for a catalogue release, whether the catalogue lists the library's main
/// header for it. A release without it, where another release has it, does not ship the library
/// (it is skipped, with a note); a catalogue without it anywhere is older than the library's
/// description, an error that says to refresh it.
pub fn source_has_library(ws: &Workspace, source: &HeaderSource, library: &Library) -> Result<bool, PipelineError> {
    let HeaderSource::Ctk(query) = source else { return Ok(true) };
    let catalogue = ws.catalogue()?;
    let release = catalogue.resolve(query)?;
    let header = &library.conventions.header;
    let lists =
        |r: &Release| r.headers.contains_key(header) || r.companions.iter().any(|c| c.headers.contains_key(header));
    if lists(release) {
        return Ok(true);
    }
    if catalogue.releases.iter().any(lists) {
        return Ok(false);
    }
    Err(PipelineError::MissingExtraHeader {
        ctk: release.ctk.clone(),
        header: header.clone(),
        catalogue: ws.catalogue_path(),
    })
}
