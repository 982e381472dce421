//! Where bytes come from and go to.
//!
//! Input is a file argument or stdin (`-` or no argument). Output is stdout
//! or, with `--output FILE`, a temporary file in FILE's directory that is
//! renamed over FILE only when the command succeeded: a failed run never
//! leaves a truncated or partial output file behind.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Read, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use gcf_core::IoSink;

use crate::failure::{Failure, Result};

/// An input named on the command line.
#[derive(Debug, Clone)]
pub struct Source {
    path: Option<PathBuf>,
}

impl Source {
    /// `None` or `-` is stdin.
    pub fn new(arg: Option<&Path>) -> Source {
        Source {
            path: arg.filter(|p| *p != Path::new("-")).map(Path::to_path_buf),
        }
    }

    /// How error messages name it.
    pub fn name(&self) -> String {
        match &self.path {
            Some(p) => p.display().to_string(),
            None => "stdin".to_owned(),
        }
    }

    /// The whole input (buffered commands: the format needs all of it).
    pub fn read_all(&self) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.reader()?
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::io(format!("reading {}", self.name()), e))?;
        Ok(bytes)
    }

    /// The whole input, reading no more than one byte past `limit`: an input
    /// over it (`--max-input-len`, or an endless one such as `/dev/zero`) is
    /// `limit_exceeded` without being read whole.
    pub fn read_within(&self, limit: usize) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.reader()?
            .take((limit as u64).saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::io(format!("reading {}", self.name()), e))?;
        if bytes.len() > limit {
            return Err(gcf_core::Error::new(
                gcf_core::ErrorKind::LimitExceeded,
                format!("input is over the configured limit of {limit} bytes"),
            )
            .into());
        }
        Ok(bytes)
    }

    /// A buffered reader, for the commands that work line by line.
    pub fn reader(&self) -> Result<Box<dyn BufRead>> {
        match &self.path {
            None => Ok(Box::new(io::stdin().lock())),
            Some(p) => {
                let file = File::open(p)
                    .map_err(|e| Failure::io(format!("opening {}", p.display()), e))?;
                Ok(Box::new(BufReader::with_capacity(64 * 1024, file)))
            }
        }
    }
}

/// The temporary file of the running command, removed by the panic hook if
/// the tool has to stop without unwinding.
static PENDING_TEMP: Mutex<Option<PathBuf>> = Mutex::new(None);

fn set_pending(path: Option<PathBuf>) {
    if let Ok(mut slot) = PENDING_TEMP.lock() {
        *slot = path;
    }
}

/// Removes the pending temporary output file, if any (for the panic hook).
pub fn remove_pending_temp() {
    if let Ok(mut slot) = PENDING_TEMP.lock() {
        if let Some(path) = slot.take() {
            let _ = fs::remove_file(path);
        }
    }
}

enum Dest {
    Stdout(BufWriter<StdoutLock<'static>>),
    File {
        writer: BufWriter<File>,
        temp: PathBuf,
        target: PathBuf,
    },
}

/// The command's output: buffered stdout, or a file replaced atomically.
pub struct Output {
    dest: Option<Dest>,
    /// The last write error, kept because a core encoder reports a refused
    /// write only as `ErrorKind::Sink`: [`Output::failure`] turns it back
    /// into the I/O error (or the quiet broken pipe) that caused it.
    write_error: Option<io::Error>,
}

impl Output {
    /// Stdout when `path` is `None` or `-`, else a temporary file beside `path`.
    pub fn open(path: Option<&Path>) -> Result<Output> {
        let dest = match path.filter(|p| *p != Path::new("-")) {
            None => Dest::Stdout(BufWriter::with_capacity(64 * 1024, io::stdout().lock())),
            Some(target) => {
                let (file, temp) = create_temp_beside(target)?;
                Dest::File {
                    writer: BufWriter::with_capacity(64 * 1024, file),
                    temp,
                    target: target.to_path_buf(),
                }
            }
        };
        Ok(Output {
            dest: Some(dest),
            write_error: None,
        })
    }

    /// Flushes and, for a file, renames the temporary file over the target.
    pub fn finish(mut self) -> Result<()> {
        match self.dest.take() {
            None => Ok(()),
            Some(Dest::Stdout(mut w)) => w.flush().map_err(|e| Failure::io("writing stdout", e)),
            Some(Dest::File {
                writer,
                temp,
                target,
            }) => {
                let result = writer
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .and_then(|file| file.sync_all())
                    .and_then(|()| fs::rename(&temp, &target));
                set_pending(None);
                result.map_err(|e| {
                    let _ = fs::remove_file(&temp);
                    Failure::io(format!("writing {}", target.display()), e)
                })
            }
        }
    }

    /// A sink for core encoders (`IoSink` over this output).
    pub fn sink(&mut self) -> IoSink<&mut Output> {
        IoSink::new(self)
    }

    /// Runs a core encoder writing into this output.
    pub fn emit<T>(
        &mut self,
        encode: impl FnOnce(&mut IoSink<&mut Output>) -> std::result::Result<T, gcf_core::Error>,
    ) -> Result<T> {
        let result = encode(&mut self.sink());
        result.map_err(|e| self.failure(e))
    }

    /// The failure for a core error: a refused write becomes the I/O error
    /// that caused it, anything else keeps its category and position.
    pub fn failure(&mut self, error: gcf_core::Error) -> Failure {
        match (error.kind(), self.write_error.take()) {
            (gcf_core::ErrorKind::Sink, Some(io)) => Failure::io("writing output", io),
            _ => Failure::from(error),
        }
    }

    fn remember<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            self.write_error = Some(io::Error::new(e.kind(), e.to_string()));
        }
        result
    }

    /// Writes a JSON value (one of `gcf_bind`'s serializers), pretty or
    /// compact, and a newline.
    pub fn write_json(&mut self, value: &impl serde::Serialize, pretty: bool) -> Result<()> {
        let written = if pretty {
            serde_json::to_writer_pretty(&mut *self, value)
        } else {
            serde_json::to_writer(&mut *self, value)
        };
        match written {
            Ok(()) => self.write_text("\n"),
            Err(e) => match e.io_error_kind() {
                Some(kind) => Err(Failure::io("writing output", io::Error::from(kind))),
                None => Err(Failure::invalid_input(format!("cannot write JSON: {e}"))),
            },
        }
    }

    /// Writes text as is.
    pub fn write_text(&mut self, text: &str) -> Result<()> {
        self.write_all(text.as_bytes())
            .map_err(|e| Failure::io("writing output", e))
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = match &mut self.dest {
            Some(Dest::Stdout(w)) => w.write(buf),
            Some(Dest::File { writer, .. }) => writer.write(buf),
            None => Err(io::Error::other("output already finished")),
        };
        self.remember(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let result = match &mut self.dest {
            Some(Dest::Stdout(w)) => w.write_all(buf),
            Some(Dest::File { writer, .. }) => writer.write_all(buf),
            None => Err(io::Error::other("output already finished")),
        };
        self.remember(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = match &mut self.dest {
            Some(Dest::Stdout(w)) => w.flush(),
            Some(Dest::File { writer, .. }) => writer.flush(),
            None => Ok(()),
        };
        self.remember(result)
    }
}

impl Drop for Output {
    /// An output dropped without [`Output::finish`] belongs to a failed
    /// command: its temporary file goes away.
    fn drop(&mut self) {
        if let Some(Dest::File { temp, .. }) = self.dest.take() {
            let _ = fs::remove_file(&temp);
            set_pending(None);
        }
    }
}

/// Creates `.<name>.<pid>.<n>.tmp` in the target's directory, so the final
/// rename stays on one file system and is atomic.
fn create_temp_beside(target: &Path) -> Result<(File, PathBuf)> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| {
            Failure::io(
                "choosing the output file",
                io::Error::other(format!("{} is not a file name", target.display())),
            )
        })?;
    let pid = std::process::id();
    let mut attempt = 0u32;
    loop {
        let temp = dir.join(format!(".{name}.{pid}.{attempt}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => {
                set_pending(Some(temp.clone()));
                return Ok((file, temp));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => {
                return Err(Failure::io(
                    format!("creating a temporary file beside {}", target.display()),
                    e,
                ))
            }
        }
    }
}
