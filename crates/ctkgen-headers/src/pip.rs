//! Running the user's `pip`, so their index, proxy and certificate settings apply unchanged.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::HeadersError;

/// How to run `python -m pip`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pip {
    python: OsString,
    env: Vec<(OsString, OsString)>,
}

impl Pip {
    /// `$CTKGEN_PYTHON`, or `python3` from `PATH`.
    pub fn from_env() -> Pip {
        let python = std::env::var_os("CTKGEN_PYTHON")
            .filter(|value| !value.is_empty())
            .unwrap_or_else(|| OsString::from("python3"));
        Pip::with_python(python)
    }

    pub fn with_python(python: impl Into<OsString>) -> Pip {
        Pip { python: python.into(), env: Vec::new() }
    }

    /// Sets an environment variable for every pip run, e.g. `PIP_INDEX_URL`.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Pip {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Downloads exactly one wheel for `requirement` into the empty folder `dest` and returns
    /// its path. `platforms` pins the wheel's platform tags; empty means the host's.
    pub(crate) fn download_wheel(
        &self,
        requirement: &str,
        platforms: &[String],
        dest: &Path,
    ) -> Result<PathBuf, HeadersError> {
        let mut args: Vec<OsString> =
            ["download", "--no-deps", "--only-binary=:all:"].into_iter().map(OsString::from).collect();
        for platform in platforms {
            args.push("--platform".into());
            args.push(platform.into());
        }
        args.push("--dest".into());
        args.push(dest.as_os_str().to_owned());
        args.push(requirement.into());
        self.run(requirement, &args)?;

        let mut wheels = Vec::new();
        let entries =
            std::fs::read_dir(dest).map_err(|source| HeadersError::Read { path: dest.to_path_buf(), source })?;
        for entry in entries {
            let entry = entry.map_err(|source| HeadersError::Read { path: dest.to_path_buf(), source })?;
            wheels.push(entry.path());
        }
        wheels.sort();
        match wheels.as_slice() {
            [wheel] if wheel.extension() == Some(OsStr::new("whl")) => Ok(wheel.clone()),
            _ => Err(HeadersError::NoWheel {
                requirement: requirement.to_string(),
                dir: dest.to_path_buf(),
                found: if wheels.is_empty() {
                    "nothing".to_string()
                } else {
                    wheels
                        .iter()
                        .map(|path| path.file_name().unwrap_or_default().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            }),
        }
    }

    /// Every version of `package` on the index, as `pip index versions` lists them.
    pub(crate) fn index_versions(&self, package: &str) -> Result<Vec<String>, HeadersError> {
        let stdout = self.run(package, &["index".into(), "versions".into(), package.into()])?;
        let command = format!("pip index versions {package}");
        let listed =
            stdout.lines().find_map(|line| line.trim().strip_prefix("Available versions:")).ok_or_else(|| {
                HeadersError::PipOutput {
                    command: command.clone(),
                    detail: "no `Available versions:` line".to_string(),
                }
            })?;
        let versions: Vec<String> =
            listed.split(',').map(|version| version.trim().to_string()).filter(|version| !version.is_empty()).collect();
        if versions.is_empty() {
            return Err(HeadersError::PipOutput { command, detail: "no versions listed".to_string() });
        }
        Ok(versions)
    }

    /// Runs `python -m pip <args>` and returns its stdout; `what` names the request in errors.
    fn run(&self, what: &str, args: &[OsString]) -> Result<String, HeadersError> {
        let spawn = || {
            Command::new(&self.python)
                .args(["-m", "pip", "--disable-pip-version-check", "--no-input"])
                .args(args)
                .envs(self.env.iter().map(|(key, value)| (key, value)))
                .stdin(Stdio::null())
                .output()
        };
        // An interpreter written a moment ago (a fresh venv's) can be briefly busy: a child
        // another thread forks before its exec holds the writer's descriptor. Try again then.
        let mut output = spawn();
        for _ in 0..50 {
            match &output {
                Err(error) if error.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    output = spawn();
                }
                _ => break,
            }
        }
        let output = output.map_err(|source| HeadersError::PythonNotFound {
            python: self.python.to_string_lossy().into_owned(),
            source,
        })?;
        if output.status.success() {
            return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last_line = stderr
            .lines()
            .map(str::trim)
            .rfind(|line| !line.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| format!("pip exited with {} and said nothing", output.status));
        Err(HeadersError::PipFailed { requirement: what.to_string(), last_line })
    }
}
