//! `cargo xtask headers`: the CTK catalogue and the header cache.

use std::process::ExitCode;

use anyhow::{bail, Result};
use ctkgen::{HeaderSource, Workspace};

use crate::args::HeadersCommand;

pub fn headers(ws: &Workspace, command: HeadersCommand) -> Result<ExitCode> {
    let catalogue = ws.catalogue()?;
    match command {
        HeadersCommand::Fetch { ctk, all } => {
            let releases = match (ctk, all) {
                (Some(q), false) => vec![catalogue.resolve(&q)?],
                (None, true) => catalogue.newest_per_minor(),
                _ => bail!("give --ctk VERSION or --all"),
            };
            for release in releases {
                let set = ctkgen::resolve_headers(ws, &HeaderSource::Ctk(release.ctk.clone()))?;
                println!("{} {}", release.ctk, set.include_dir.display());
            }
        }
        HeadersCommand::List => {
            for release in &catalogue.releases {
                println!("{} {}=={}", release.ctk, release.package, release.wheel_version);
            }
        }
        HeadersCommand::Refresh => {
            ctkgen::refresh_catalogue(ws, &mut |line| eprintln!("{line}"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
