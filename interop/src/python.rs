//! gcf-python 2.8.0 as a test oracle: one `python/oracle.py` process per
//! [`Python`], spoken to in JSON lines (one request, one answer), so a run
//! of a hundred thousand values pays the interpreter's start once.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value as Json};

/// A running gcf-python oracle.
pub struct Python {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    line: String,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The interpreter with gcf-python installed: `GCF_REF_PYTHON`, or the
/// venv `scripts/ref-python.sh` creates (running it if need be).
fn interpreter() -> Result<PathBuf, String> {
    if let Some(py) = std::env::var_os("GCF_REF_PYTHON") {
        return Ok(PathBuf::from(py));
    }
    let out = Command::new("bash")
        .arg(workspace().join("scripts/ref-python.sh"))
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("running scripts/ref-python.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!("scripts/ref-python.sh failed: {}", out.status));
    }
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Ok(PathBuf::from(path))
}

impl Python {
    /// Starts the oracle, checking it runs the pinned gcf-python.
    pub fn start() -> Result<Python, String> {
        let py = interpreter()?;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/oracle.py");
        let mut child = Command::new(&py)
            .arg(&script)
            .env("PYTHONIOENCODING", "utf-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", py.display()))?;
        let input = BufWriter::new(child.stdin.take().ok_or("no stdin")?);
        let output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut python = Python {
            child,
            input,
            output,
            line: String::new(),
        };
        let version = python.call(&json!({"op": "version"}))?;
        match version["version"].as_str() {
            Some("2.8.0") => Ok(python),
            other => Err(format!("expected gcf-python 2.8.0, found {other:?}")),
        }
    }

    /// One request, one answer; `Err` carries the Python exception.
    fn call(&mut self, request: &Json) -> Result<Json, String> {
        let broken = |e: std::io::Error| format!("the Python oracle is gone: {e}");
        serde_json::to_writer(&mut self.input, request).map_err(|e| e.to_string())?;
        self.input.write_all(b"\n").map_err(broken)?;
        self.input.flush().map_err(broken)?;
        self.line.clear();
        if self.output.read_line(&mut self.line).map_err(broken)? == 0 {
            return Err(String::from("the Python oracle exited"));
        }
        let mut answer: Json = serde_json::from_str(&self.line)
            .map_err(|e| format!("unreadable answer {:?}: {e}", self.line))?;
        if answer["ok"] == Json::Bool(true) {
            Ok(answer)
        } else {
            Err(answer["error"].take().as_str().unwrap_or("?").to_owned())
        }
    }

    /// `gcf.encode_generic(value, GenericOptions(**opts))`; `opts` is a JSON
    /// object of option names (`{}` for the defaults, which factor constants).
    pub fn encode(&mut self, value: &Json, opts: &Json) -> Result<String, String> {
        let mut a = self.call(&json!({"op": "encode", "value": value, "opts": opts}))?;
        Ok(a["text"].take().as_str().unwrap_or_default().to_owned())
    }

    /// `gcf.encode_generic_grouped(value, key, group)` (spec §7.4.8).
    pub fn encode_grouped(
        &mut self,
        value: &Json,
        key: &str,
        group: &str,
    ) -> Result<String, String> {
        let mut a = self
            .call(&json!({"op": "encode_grouped", "value": value, "key": key, "group": group}))?;
        Ok(a["text"].take().as_str().unwrap_or_default().to_owned())
    }

    /// Several requests in one exchange (one line each way), answered in
    /// order, each as if alone: `Ok(answer)` or `Err(exception)`. The
    /// requests are the oracle's ops (see `python/oracle.py`); build them
    /// with [`Python::encode_request`], [`Python::encode_grouped_request`]
    /// and [`Python::decode_request`].
    pub fn batch(&mut self, requests: Vec<Json>) -> Result<Vec<Result<Json, String>>, String> {
        let mut a = self.call(&json!({"op": "batch", "requests": requests}))?;
        let Json::Array(answers) = a["answers"].take() else {
            return Err(String::from("a batch answer without answers"));
        };
        Ok(answers
            .into_iter()
            .map(|mut a| {
                if a["ok"] == Json::Bool(true) {
                    Ok(a)
                } else {
                    Err(a["error"].take().as_str().unwrap_or("?").to_owned())
                }
            })
            .collect())
    }

    /// The request of [`Python::encode`], for [`Python::batch`]; its answer's
    /// `text` is the encoding.
    pub fn encode_request(value: &Json, opts: &Json) -> Json {
        json!({"op": "encode", "value": value, "opts": opts})
    }

    /// The request of [`Python::encode_grouped`], for [`Python::batch`].
    pub fn encode_grouped_request(value: &Json, key: &str, group: &str) -> Json {
        json!({"op": "encode_grouped", "value": value, "key": key, "group": group})
    }

    /// The request of [`Python::decode`], for [`Python::batch`]; its answer's
    /// `value` is the decoded value.
    pub fn decode_request(text: &str) -> Json {
        json!({"op": "decode", "text": text})
    }

    /// `gcf.decode_generic(text)`.
    pub fn decode(&mut self, text: &str) -> Result<Json, String> {
        let mut a = self.call(&json!({"op": "decode", "text": text}))?;
        Ok(a["value"].take())
    }
}

impl Drop for Python {
    fn drop(&mut self) {
        // The oracle holds no state worth a clean exit: end this process (our
        // own child, by its handle) and reap it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
