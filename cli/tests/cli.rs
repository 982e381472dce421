//! End-to-end tests of the `gcf` binary: exit codes, exact output for small
//! inputs, the one-line error format, `--output` atomicity, stdin, broken
//! pipes, the committed examples, and constant memory in `gcf stream`.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use gcf_core::generic;
use serde_json::Value as Json;

const GCF: &str = env!("CARGO_BIN_EXE_gcf");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `gcf args...` with `stdin` (empty when `None`).
fn gcf(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(GCF)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gcf");
    let input = stdin.unwrap_or_default().to_vec();
    let mut pipe = child.stdin.take().expect("stdin");
    // A separate writer: a child that writes a lot before reading all of its
    // input must not deadlock the test.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait gcf");
    writer.join().expect("stdin writer");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// Asserts a failed run printed exactly one error line of `category`, and returns it.
fn expect_error(run: &Run, category: &str) -> String {
    assert_eq!(
        run.code, 1,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "one line: {:?}", run.stderr);
    let line = run.stderr.trim_end_matches('\n').to_owned();
    let prefix = format!("error[{category}]: ");
    assert!(
        line.starts_with(&prefix),
        "{line:?} should start with {prefix:?}"
    );
    assert!(!line.contains("panicked") && !line.contains("RUST_BACKTRACE"));
    line
}

fn ok(run: &Run) -> &str {
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert_eq!(run.stderr, "");
    &run.stdout
}

fn example(name: &str) -> String {
    format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn conformance(path: &str) -> Json {
    let full = format!(
        "{}/../../shared/conformance/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    serde_json::from_str(&text).expect("fixture JSON")
}

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gcf-cli-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.0)
            .expect("read temp dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

const PAYLOAD: &str = r#"{"tool":"context_for_task","tokenBudget":5000,"tokensUsed":1847,
 "symbols":[{"qualifiedName":"pkg.Auth","kind":"function","score":0.78,"provenance":"lsp_resolved","distance":0},
            {"qualifiedName":"pkg.Server","kind":"function","score":0.54,"provenance":"lsp_resolved","distance":1}],
 "edges":[{"source":"pkg.Server","target":"pkg.Auth","edgeType":"calls","status":""}]}"#;

const PAYLOAD_GCF: &str =
    "GCF profile=graph tool=context_for_task budget=5000 tokens=1847 symbols=2 edges=1\n\
## targets\n@0 fn pkg.Auth 0.78 lsp_resolved\n## related\n@1 fn pkg.Server 0.54 lsp_resolved\n\
## edges [1]\n@0<@1 calls\n";

const PAYLOAD_ROOT: &str =
    "sha256:8e6d32973b4005c604399a14faa32799d54f427800008312a3357c349d41e572";

// --- encode / decode ---------------------------------------------------------

#[test]
fn encode_from_stdin_file_and_dash() {
    assert_eq!(ok(&gcf(&["encode"], Some(PAYLOAD.as_bytes()))), PAYLOAD_GCF);
    assert_eq!(
        ok(&gcf(&["encode", "-"], Some(PAYLOAD.as_bytes()))),
        PAYLOAD_GCF
    );
    let dir = TempDir::new();
    let file = dir.path("p.json");
    fs::write(&file, PAYLOAD).unwrap();
    assert_eq!(ok(&gcf(&["encode", s(&file)], None)), PAYLOAD_GCF);
}

#[test]
fn encode_errors() {
    let run = gcf(&["encode"], Some(b"{\n  \"symbols\": ]"));
    assert_eq!(
        expect_error(&run, "json"),
        "error[json]: symbols: invalid JSON: expected value (line 2, column 14)"
    );
    let run = gcf(&["encode"], Some(br#"{"symbols":[{"score":"high"}]}"#));
    let line = expect_error(&run, "invalid_input");
    // The path of the offending value, what it is, and its position.
    assert_eq!(
        line,
        "error[invalid_input]: symbols[0].score: invalid type: string \"high\", \
         expected a number (line 1, column 27)"
    );
    // Whitespace cannot appear in a graph name: the encoder refuses it.
    let run = gcf(
        &["encode"],
        Some(br#"{"symbols":[{"qualifiedName":"a b","kind":"function","score":0.5,"provenance":"x"}]}"#),
    );
    expect_error(&run, "invalid_input");
    let run = gcf(&["encode", "/nonexistent/input.json"], None);
    let line = expect_error(&run, "io");
    assert!(line.contains("/nonexistent/input.json"), "{line}");
}

/// As the reference SDKs' `gcf decode` prints it (2.5.2's and 2.8.0's
/// commands agree): `tokensUsed` first, an edge's `status` only when set.
#[test]
fn decode_prints_pretty_json() {
    let expected = r#"{
  "tool": "context_for_task",
  "tokensUsed": 1847,
  "tokenBudget": 5000,
  "packRoot": "",
  "symbols": [
    {
      "qualifiedName": "pkg.Auth",
      "kind": "function",
      "score": 0.78,
      "provenance": "lsp_resolved",
      "distance": 0
    },
    {
      "qualifiedName": "pkg.Server",
      "kind": "function",
      "score": 0.54,
      "provenance": "lsp_resolved",
      "distance": 1
    }
  ],
  "edges": [
    {
      "source": "pkg.Server",
      "target": "pkg.Auth",
      "edgeType": "calls"
    }
  ]
}
"#;
    assert_eq!(
        ok(&gcf(&["decode"], Some(PAYLOAD_GCF.as_bytes()))),
        expected
    );
}

#[test]
fn decode_errors_carry_category_and_position() {
    let run = gcf(
        &["decode"],
        Some(b"GCF profile=graph\n## targets\n@x fn a.B 0.50 lsp\n"),
    );
    let line = expect_error(&run, "invalid_symbol_id");
    assert!(line.ends_with("(line 3, column 2)"), "{line}");
    let run = gcf(
        &["decode"],
        Some(b"GCF profile=graph\n## targets\n@0 fn a\xff 0.50 x\n"),
    );
    let line = expect_error(&run, "invalid_utf8");
    assert!(line.contains("(line 3"), "{line}");
    let run = gcf(&["decode"], Some(b"GCF profile=generic\nx=1\n"));
    let line = expect_error(&run, "invalid_input");
    assert!(line.contains("`gcf decode-generic`"), "{line}");
    let run = gcf(&["decode-generic"], Some(PAYLOAD_GCF.as_bytes()));
    let line = expect_error(&run, "invalid_input");
    assert!(line.contains("`gcf decode`"), "{line}");
    let run = gcf(&["decode"], Some(b"hello\n"));
    let line = expect_error(&run, "missing_header");
    assert!(line.ends_with("(line 1, column 1)"), "{line}");
}

/// A graph delta with an unknown section is a malformed delta for `gcf decode`
/// as for `gcf validate`, at the section's line; a sound delta gets the advice
/// to apply it.
#[test]
fn decode_of_a_graph_delta_reports_the_delta_error() {
    let bad =
        b"GCF profile=graph delta=true base_root=sha256:a new_root=sha256:b\n## bogus\nfn a\n";
    for command in ["decode", "validate"] {
        let line = expect_error(&gcf(&[command], Some(bad)), "malformed_delta");
        assert!(line.ends_with("(line 2, column 4)"), "{command}: {line}");
    }
    let sound =
        b"GCF profile=graph delta=true base_root=sha256:a new_root=sha256:b\n## removed\nfn a\n";
    let line = expect_error(&gcf(&["decode"], Some(sound)), "invalid_input");
    assert!(line.contains("apply it"), "{line}");
}

/// `gcf decode-generic` reads constant columns and value-grouped tables.
#[test]
fn decode_generic_reads_constant_columns_and_groups() {
    let run = gcf(
        &["decode-generic"],
        Some(b"GCF profile=generic\n## [3]{a,b=x}\n1\n2\n3\n"),
    );
    assert_eq!(
        ok(&run),
        "[{\"a\":1,\"b\":\"x\"},{\"a\":2,\"b\":\"x\"},{\"a\":3,\"b\":\"x\"}]\n"
    );
    let run = gcf(
        &["decode-generic"],
        Some(b"GCF profile=generic\n## [2]{@id,g} group=g\ng=a [2]\n1\n2\n"),
    );
    assert_eq!(
        ok(&run),
        "[{\"id\":1,\"g\":\"a\"},{\"id\":2,\"g\":\"a\"}]\n"
    );
    let run = gcf(
        &["decode-generic"],
        Some(b"GCF profile=generic\n## [1]{a,b=~}\n1\n"),
    );
    let line = expect_error(&run, "invalid_const_value");
    assert!(line.ends_with("(line 2, column 12)"), "{line}");
}

// --- generic -------------------------------------------------------------------

#[test]
fn generic_round_trip_keeps_key_order_and_exact_integers() {
    let input = r#"{"zeta":1,"alpha":[1,2,3],"big":9223372036854775807,"obj":{"b":true,"a":null}}"#;
    let text = ok(&gcf(&["encode-generic"], Some(input.as_bytes()))).to_owned();
    assert!(text.starts_with("GCF profile=generic\n"), "{text}");
    assert!(text.contains("big=9223372036854775807"), "{text}");
    let back = gcf(&["decode-generic"], Some(text.as_bytes()));
    assert_eq!(ok(&back), format!("{input}\n"));
    let pretty = gcf(&["decode-generic", "--pretty"], Some(text.as_bytes()));
    assert!(ok(&pretty).starts_with("{\n  \"zeta\": 1,\n  \"alpha\": [\n"));
}

#[test]
fn generic_exact_output() {
    let run = gcf(
        &["encode-generic"],
        Some(br#"[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"}]"#),
    );
    assert_eq!(
        ok(&run),
        "GCF profile=generic\n## [2]{id,name}\n1|Alice\n2|Bob\n"
    );
}

#[test]
fn generic_constant_columns_and_groups() {
    let rows = br#"[{"id":1,"t":"f","s":"a"},{"id":2,"t":"f","s":"b"},{"id":3,"t":"f","s":"a"}]"#;
    assert_eq!(
        ok(&gcf(&["encode-generic"], Some(rows))),
        "GCF profile=generic\n## [3]{id,t=f,s}\n1|a\n2|b\n3|a\n"
    );
    assert_eq!(
        ok(&gcf(
            &["encode-generic", "--no-constant-columns"],
            Some(rows)
        )),
        "GCF profile=generic\n## [3]{id,t,s}\n1|f|a\n2|f|b\n3|f|a\n"
    );
    let nested = br#"[{"id":1,"o":{"n":"x"}},{"id":2,"o":{"n":"y"}}]"#;
    assert_eq!(
        ok(&gcf(&["encode-generic"], Some(nested))),
        "GCF profile=generic\n## [2]{id,\"o>n\"}\n1|x\n2|y\n"
    );
    assert_eq!(
        ok(&gcf(&["encode-generic", "--no-flatten"], Some(nested))),
        "GCF profile=generic\n## [2]{id,o}\n@0 1|^\n.o {}\n    n=x\n@1 2|^\n.o {}\n    n=y\n"
    );
    assert_eq!(
        ok(&gcf(&["encode-generic", "--group-by", "id,s"], Some(rows))),
        "GCF profile=generic\n## [3]{@id,t=f,s} group=s\ns=a [2]\n1\n3\ns=b [1]\n2\n"
    );
    // Not groupable: a data error; a malformed option: a usage error.
    let line = expect_error(
        &gcf(&["encode-generic", "--group-by", "t,s"], Some(rows)),
        "invalid_input",
    );
    assert!(line.contains("not unique"), "{line}");
    for bad in [
        &["--group-by", "id"][..],
        &["--group-by", ",s"],
        &["--group-by", "id,s", "--no-constant-columns"],
    ] {
        let mut args = vec!["encode-generic"];
        args.extend_from_slice(bad);
        let run = gcf(&args, Some(rows));
        assert_eq!(run.code, 2, "{bad:?}: {}", run.stderr);
    }
}

#[test]
fn generic_errors() {
    let run = gcf(&["encode-generic"], Some(b"{\"n\": 18446744073709551616}"));
    expect_error(&run, "out_of_range");
    let run = gcf(
        &["decode-generic"],
        Some(b"GCF profile=generic\n## rows [3]{id,name}\n1|Alice\n2|Bob\n"),
    );
    expect_error(&run, "count_mismatch");
    let run = gcf(
        &["decode-generic"],
        Some(b"GCF profile=generic\nname=\"open\n"),
    );
    let line = expect_error(&run, "unterminated_quote");
    assert!(line.contains("(line 2"), "{line}");
}

// --- stream ------------------------------------------------------------------

const STREAM: &str = r#"{"qualifiedName":"pkg.Auth","kind":"function","score":0.95,"provenance":"lsp","distance":0}
{"qualifiedName":"pkg.Server","kind":"function","score":0.6,"provenance":"lsp","distance":1}

{"sourceId":1,"targetId":0,"edgeType":"calls"}
"#;

#[test]
fn stream_graph_by_id_with_each_trailer() {
    let body =
        "GCF profile=graph tool=ctx budget=100\n## targets\n@0 fn pkg.Auth 0.95 lsp\n## related\n\
                @1 fn pkg.Server 0.60 lsp\n## edges [?]\n@0<@1 calls\n";
    let run = gcf(
        &["stream", "--tool", "ctx", "--budget", "100"],
        Some(STREAM.as_bytes()),
    );
    assert_eq!(
        ok(&run),
        format!("{body}##! summary symbols=2 edges=1 counts=1,1,1\n")
    );
    let run = gcf(
        &[
            "stream",
            "--tool",
            "ctx",
            "--budget",
            "100",
            "--trailer",
            "labeled",
        ],
        Some(STREAM.as_bytes()),
    );
    assert_eq!(
        ok(&run),
        format!("{body}##! summary symbols=2 edges=1 counts=targets:1,related:1,edges:1\n")
    );
    let run = gcf(
        &[
            "stream",
            "--tool",
            "ctx",
            "--budget",
            "100",
            "--trailer",
            "legacy",
        ],
        Some(STREAM.as_bytes()),
    );
    assert!(
        ok(&run).ends_with("## _summary symbols=2 edges=1 sections=targets:1,related:1,edges:1\n")
    );
    let validated = gcf(&["validate"], Some(run.stdout.as_bytes()));
    assert_eq!(ok(&validated), "ok: graph payload, 2 symbols, 1 edges\n");
}

#[test]
fn stream_graph_by_name_needs_the_index() {
    let by_name = STREAM.replace(
        r#"{"sourceId":1,"targetId":0,"edgeType":"calls"}"#,
        r#"{"source":"pkg.Server","target":"pkg.Auth","edgeType":"calls"}"#,
    );
    let run = gcf(&["stream"], Some(by_name.as_bytes()));
    let line = expect_error(&run, "invalid_input");
    assert!(
        line.contains("--index-names") && line.ends_with("(line 4, column 1)"),
        "{line}"
    );
    let run = gcf(&["stream", "--index-names"], Some(by_name.as_bytes()));
    assert!(ok(&run).contains("## edges [?]\n@0<@1 calls\n##! summary symbols=2 edges=1"));
    let unknown = by_name.replace(r#""target":"pkg.Auth""#, r#""target":"pkg.Nope""#);
    let run = gcf(&["stream", "--index-names"], Some(unknown.as_bytes()));
    let line = expect_error(&run, "unknown_edge_reference");
    assert!(
        line.contains("pkg.Nope") && line.ends_with("(line 4, column 1)"),
        "{line}"
    );
}

#[test]
fn stream_graph_errors_name_the_line() {
    let late = format!(
        "{STREAM}{}\n",
        r#"{"qualifiedName":"pkg.Late","kind":"function","score":0.1,"provenance":"lsp","distance":1}"#
    );
    let line = expect_error(&gcf(&["stream"], Some(late.as_bytes())), "invalid_state");
    assert!(line.ends_with("(line 5, column 1)"), "{line}");
    let bad = "{\"qualifiedName\":\"a\",\"kind\":\"var\",\"provenance\":\"x\"}\n{\"sourceId\": 0, \"targetId\": }\n";
    let line = expect_error(&gcf(&["stream"], Some(bad.as_bytes())), "json");
    assert!(line.ends_with("(line 2, column 29)"), "{line}");
    let line = expect_error(&gcf(&["stream"], Some(b"[1,2]\n")), "invalid_input");
    assert!(line.ends_with("(line 1, column 1)"), "{line}");
    let line = expect_error(&gcf(&["stream"], Some(b"{\"x\":1}\n")), "invalid_input");
    assert!(line.ends_with("(line 1, column 1)"), "{line}");
    let out_of_range =
        "{\"qualifiedName\":\"a\",\"kind\":\"function\",\"score\":0.5,\"provenance\":\"x\"}\n\
                        {\"sourceId\":0,\"targetId\":7,\"edgeType\":\"calls\"}\n";
    let line = expect_error(
        &gcf(&["stream"], Some(out_of_range.as_bytes())),
        "unknown_edge_reference",
    );
    assert!(line.ends_with("(line 2, column 1)"), "{line}");
}

#[test]
fn stream_generic_rows() {
    let rows = "{\"id\":1,\"name\":\"Alice\",\"dept\":\"Eng\"}\n{\"name\":\"Bob\",\"id\":2}\n";
    let run = gcf(
        &["stream", "--profile", "generic", "--name", "staff"],
        Some(rows.as_bytes()),
    );
    assert_eq!(
        ok(&run),
        "GCF profile=generic\n## staff [?]{id,name,dept}\n1|Alice|Eng\n2|Bob|~\n##! summary counts=2\n"
    );
    let run = gcf(
        &[
            "stream",
            "--profile",
            "generic",
            "--fields",
            "name,id,dept,extra",
            "--tool",
            "hr",
        ],
        Some(rows.as_bytes()),
    );
    assert_eq!(
        ok(&run),
        "GCF profile=generic tool=hr\n## rows [?]{name,id,dept,extra}\nAlice|1|Eng|~\nBob|2|~|~\n##! summary counts=2\n"
    );
    let decoded = gcf(&["decode-generic"], Some(run.stdout.as_bytes()));
    assert_eq!(
        ok(&decoded),
        "{\"rows\":[{\"name\":\"Alice\",\"id\":1,\"dept\":\"Eng\"},{\"name\":\"Bob\",\"id\":2}]}\n"
    );
}

#[test]
fn stream_generic_unknown_field_names_field_and_line() {
    let rows = "{\"id\":1}\n{\"id\":2}\n\n{\"id\":3,\"colour\":\"red\"}\n";
    let run = gcf(&["stream", "--profile", "generic"], Some(rows.as_bytes()));
    let line = expect_error(&run, "invalid_input");
    assert!(
        line.contains("`colour`") && line.ends_with("(line 4, column 9)"),
        "{line}"
    );
    // Errors in the flags are not blamed on a line of the input.
    let run = gcf(
        &["stream", "--profile", "generic", "--fields", "a,a"],
        Some(b"{\"a\":1}\n"),
    );
    assert_eq!(
        expect_error(&run, "duplicate_field_name"),
        "error[duplicate_field_name]: table header: field `a` is declared twice"
    );
    let run = gcf(&["stream", "--tool", "a b"], Some(STREAM.as_bytes()));
    assert!(!expect_error(&run, "invalid_input").contains("(line"));
    // At the nested value (JSON columns are bytes), and at a member whose
    // key is spelled with an escape.
    let nested = "{\"id\":1,\"tags\":[\"a\"]}\n";
    let run = gcf(&["stream", "--profile", "generic"], Some(nested.as_bytes()));
    let line = expect_error(&run, "invalid_input");
    assert!(line.ends_with("(line 1, column 16)"), "{line}");
    let escaped = "{\"id\":1}\n  {\"id\": 2, \"\\u00e9t\\u00e9\": 3}\n";
    let run = gcf(
        &["stream", "--profile", "generic"],
        Some(escaped.as_bytes()),
    );
    let line = expect_error(&run, "invalid_input");
    assert!(line.ends_with("(line 2, column 13)"), "{line}");
    // A row with no fields to declare: the record.
    let run = gcf(&["stream", "--profile", "generic"], Some(b"{}\n"));
    let line = expect_error(&run, "invalid_input");
    assert!(line.ends_with("(line 1, column 1)"), "{line}");
}

// --- pack-root, delta --------------------------------------------------------

#[test]
fn pack_root_matches_the_conformance_fixtures() {
    let graph = conformance("graph-pack-root/001_basic.json");
    let run = gcf(&["pack-root"], Some(graph["input"].to_string().as_bytes()));
    assert_eq!(
        ok(&run),
        format!("{}\n", graph["expected"].as_str().unwrap())
    );
    let keyed = conformance("generic-pack-root/001_basic.json");
    let run = gcf(
        &["pack-root", "--generic"],
        Some(keyed["input"].to_string().as_bytes()),
    );
    assert_eq!(
        ok(&run),
        format!("{}\n", keyed["expected"].as_str().unwrap())
    );
    assert_eq!(
        ok(&gcf(&["pack-root"], Some(PAYLOAD.as_bytes()))),
        format!("{PAYLOAD_ROOT}\n")
    );
    let run = gcf(&["pack-root", "--generic"], Some(br#"{"rows":[]}"#));
    let line = expect_error(&run, "invalid_input");
    assert!(line.contains("`key`"), "{line}");
}

#[test]
fn delta_three_outcomes_graph() {
    let dir = TempDir::new();
    let base_path = example("codegraph.json");
    let mut new: Json = serde_json::from_str(&fs::read_to_string(&base_path).unwrap()).unwrap();
    new["symbols"][5]["score"] = serde_json::json!(0.01);
    let new_path = dir.path("new.json");
    fs::write(&new_path, new.to_string()).unwrap();

    let run = gcf(&["delta", "--base", &base_path, s(&new_path)], None);
    let text = ok(&run);
    assert!(
        text.starts_with("GCF profile=graph tool=context_for_task delta=true base_root=sha256:"),
        "{text}"
    );
    assert!(
        text.contains("\n## removed\n") && text.contains("\n## added\n"),
        "{text}"
    );
    let summary = gcf(&["validate"], Some(text.as_bytes()));
    assert_eq!(
        ok(&summary),
        "ok: graph delta, 1 removed, 1 added, 0 edges removed, 0 edges added\n"
    );

    let run = gcf(&["delta", "--base", &base_path, &base_path], None);
    let text = ok(&run);
    assert!(text
        .starts_with("GCF profile=graph tool=context_for_task unchanged=true pack_root=sha256:"));
    assert_eq!(text.lines().count(), 1);

    let run = gcf(
        &[
            "delta",
            "--base",
            &base_path,
            "--echoed-root",
            "sha256:unknown",
            s(&new_path),
        ],
        None,
    );
    let text = ok(&run);
    assert!(
        text.contains(" pack_root=sha256:") && text.contains("\n## targets\n"),
        "{text}"
    );
    assert!(!text.contains("delta=true"));

    // NEW from stdin.
    let run = gcf(
        &["delta", "--base", &base_path],
        Some(new.to_string().as_bytes()),
    );
    assert!(ok(&run).contains("delta=true"));
}

#[test]
fn delta_three_outcomes_generic() {
    let dir = TempDir::new();
    let rows: Vec<Json> = (0..40)
        .map(|i| serde_json::json!({"id": 1000 + i, "total": 10.5 + i as f64, "status": "pending"}))
        .collect();
    let base = serde_json::json!({"name": "orders", "key": "id", "fields": ["id", "total", "status"], "rows": rows});
    let mut new = base.clone();
    new["rows"][3]["status"] = serde_json::json!("shipped");
    new["tool"] = serde_json::json!("orders_query");
    let (base_path, new_path) = (dir.path("base.json"), dir.path("new.json"));
    fs::write(&base_path, base.to_string()).unwrap();
    fs::write(&new_path, new.to_string()).unwrap();

    let run = gcf(
        &["delta", "--generic", "--base", s(&base_path), s(&new_path)],
        None,
    );
    let text = ok(&run);
    assert!(
        text.starts_with("GCF profile=generic tool=orders_query delta=true base_root=sha256:"),
        "{text}"
    );
    assert!(
        text.ends_with(" key=id\n## changed [1]{@id,total,status}\n1003|13.5|shipped\n"),
        "{text}"
    );
    assert_eq!(
        ok(&gcf(&["validate"], Some(text.as_bytes()))),
        "ok: generic delta, 0 added, 1 changed, 0 removed\n"
    );

    let run = gcf(
        &["delta", "--generic", "--base", s(&base_path), s(&base_path)],
        None,
    );
    let text = ok(&run);
    assert!(
        text.starts_with("GCF profile=generic unchanged=true pack_root=sha256:")
            && text.ends_with(" count=40\n")
    );
    assert!(ok(&gcf(&["validate"], Some(text.as_bytes())))
        .starts_with("ok: generic unchanged, pack_root=sha256:"));

    let run = gcf(
        &[
            "delta",
            "--generic",
            "--base",
            s(&base_path),
            "--echoed-root",
            "",
            s(&new_path),
        ],
        None,
    );
    let text = ok(&run);
    assert!(
        text.contains(" pack_root=sha256:")
            && text.contains(" key=id\n## orders [40]{@id,total,status}\n")
    );
    let decoded = gcf(&["decode-generic"], Some(text.as_bytes()));
    assert!(ok(&decoded).contains(r#"{"id":1003,"total":13.5,"status":"shipped"}"#));
}

#[test]
fn delta_errors() {
    let run = gcf(&["delta", "new.json"], None);
    assert_eq!(run.code, 2, "--base is required: {}", run.stderr);
    let run = gcf(
        &["delta", "--base", "/nonexistent/base.json"],
        Some(PAYLOAD.as_bytes()),
    );
    expect_error(&run, "io");
}

// --- validate, stats -----------------------------------------------------------

#[test]
fn validate_reports_each_profile() {
    assert_eq!(
        ok(&gcf(&["validate"], Some(PAYLOAD_GCF.as_bytes()))),
        "ok: graph payload, 2 symbols, 1 edges\n"
    );
    assert_eq!(
        ok(&gcf(
            &["validate"],
            Some(b"GCF profile=generic\n## [2]{id}\n1\n2\n")
        )),
        "ok: generic payload, array of 2 items\n"
    );
    let delta = conformance("graph-delta/001_basic.json");
    let run = gcf(
        &["validate"],
        Some(delta["expected"].as_str().unwrap().as_bytes()),
    );
    assert_eq!(
        ok(&run),
        "ok: graph delta, 1 removed, 1 added, 0 edges removed, 0 edges added\n"
    );
    let line = expect_error(
        &gcf(&["validate"], Some(b"GCF profile=custom\n")),
        "unknown_profile",
    );
    assert!(line.ends_with("(line 1, column 13)"), "{line}");
}

#[test]
fn validate_matches_every_error_fixture_category() {
    let dir = format!(
        "{}/../../shared/conformance/errors-v2",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut checked = 0;
    for entry in fs::read_dir(&dir).expect("errors-v2 fixtures") {
        let path = entry.unwrap().path();
        let fixture: Json = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let Some(expected) = fixture["expectedError"].as_str() else {
            continue;
        };
        let input = match (&fixture["input"], &fixture["inputBase64"]) {
            (Json::String(text), _) => text.as_bytes().to_vec(),
            (_, Json::String(b64)) => base64(b64),
            _ => continue,
        };
        let run = gcf(&["validate"], Some(&input));
        let line = expect_error(&run, expected);
        assert!(
            line.contains("(line "),
            "{}: no position in {line}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} error fixtures found");
}

fn base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).expect("base64 digit") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[test]
fn stats_estimates_bytes_over_four() {
    let run = gcf(
        &["stats", "--tokenizer", "estimate"],
        Some(PAYLOAD.as_bytes()),
    );
    let compact: Json = serde_json::from_str(PAYLOAD).unwrap();
    let json_bytes = compact.to_string().len();
    let gcf_bytes = PAYLOAD_GCF.len();
    let (jt, gt) = (json_bytes.div_ceil(4), gcf_bytes.div_ceil(4));
    let expected = format!(
        "profile: graph\ntokenizer: estimate (bytes / 4)\njson: {json_bytes} bytes, {jt} tokens\ngcf: {gcf_bytes} bytes, {gt} tokens\n\
         saving: {:.1}% tokens, {:.1}% bytes\n",
        100.0 * (jt as f64 - gt as f64) / jt as f64,
        100.0 * (json_bytes as f64 - gcf_bytes as f64) / json_bytes as f64
    );
    assert_eq!(ok(&run), expected);
    // Tiny tables can come out larger than JSON: the saving is then negative.
    let run = gcf(
        &["stats", "--tokenizer", "estimate"],
        Some(br#"[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"}]"#),
    );
    assert_eq!(
        ok(&run),
        "profile: generic\ntokenizer: estimate (bytes / 4)\njson: 47 bytes, 12 tokens\ngcf: 50 bytes, 13 tokens\nsaving: -8.3% tokens, -6.4% bytes\n"
    );
    let run = gcf(&["stats", "--profile", "generic"], Some(PAYLOAD.as_bytes()));
    assert!(ok(&run).starts_with("profile: generic\n"));
    expect_error(&gcf(&["stats"], Some(b"{")), "json");
}

#[test]
fn stats_counts_real_tokens() {
    // The counts js-tiktoken (the playground's tokenizer, an independent
    // implementation) gives for the same two texts: the compact JSON of the
    // example and its GCF.
    let file = example("codegraph.json");
    for (args, expected) in [
        (
            vec!["stats", file.as_str()],
            "profile: graph\ntokenizer: o200k_base\njson: 168033 bytes, 39708 tokens\n\
             gcf: 36010 bytes, 12215 tokens\nsaving: 69.2% tokens, 78.6% bytes\n",
        ),
        (
            vec!["stats", "--tokenizer", "cl100k", file.as_str()],
            "profile: graph\ntokenizer: cl100k_base\njson: 168033 bytes, 38761 tokens\n\
             gcf: 36010 bytes, 12022 tokens\nsaving: 69.0% tokens, 78.6% bytes\n",
        ),
    ] {
        assert_eq!(ok(&gcf(&args, None)), expected, "{args:?}");
    }
    // A GCF payload: the text as given against the compact JSON it decodes
    // to (js-tiktoken agrees on both again).
    let encoded = gcf(&["encode", file.as_str()], None);
    let text = ok(&encoded);
    assert_eq!(
        ok(&gcf(&["stats"], Some(text.as_bytes()))),
        "profile: graph\ntokenizer: o200k_base\njson: 159131 bytes, 36739 tokens\n\
         gcf: 36010 bytes, 12215 tokens\nsaving: 66.8% tokens, 77.4% bytes\n"
    );
    expect_error(
        &gcf(&["stats", "--profile", "generic"], Some(text.as_bytes())),
        "invalid_input",
    );
    expect_error(
        &gcf(
            &["stats"],
            Some(b"GCF profile=graph unchanged=true pack_root=sha256:00\n"),
        ),
        "invalid_input",
    );
    expect_error(
        &gcf(&["stats"], Some(b"GCF profile=generic\n## [2]{a}\n1\n")),
        "count_mismatch",
    );
    // A special token's text is ordinary text in a tool result.
    let run = gcf(&["stats"], Some(br#"{"a":"<|endoftext|>"}"#));
    assert!(ok(&run).contains("tokenizer: o200k_base\n"));
    assert_eq!(gcf(&["stats", "--tokenizer", "bogus"], None).code, 2);
}

#[test]
fn stats_refuses_a_whitespace_run_the_tokenizer_cannot_read() {
    // tiktoken-rs's pre-split overflows its regex stack (and panics) on a
    // run of about a million spaces: a clear error well before that, and
    // the estimate still counts it.
    let long = format!("{{\"a\":\"{}\"}}", " ".repeat(150_000));
    let run = gcf(&["stats"], Some(long.as_bytes()));
    expect_error(&run, "invalid_input");
    assert!(
        run.stderr.contains("--tokenizer estimate"),
        "{}",
        run.stderr
    );
    assert!(ok(&gcf(
        &["stats", "--tokenizer", "estimate"],
        Some(long.as_bytes())
    ))
    .contains("json: 150008 bytes"));
    let short = format!("{{\"a\":\"{}x\"}}", "\u{3000}".repeat(90_000));
    assert!(ok(&gcf(&["stats"], Some(short.as_bytes()))).contains("tokenizer: o200k_base"));
}

// --- usage, --output, pipes --------------------------------------------------------

#[test]
fn usage_errors_exit_2_and_help_shows_an_example() {
    assert_eq!(gcf(&["encode", "--bogus"], None).code, 2);
    assert_eq!(gcf(&["frobnicate"], None).code, 2);
    assert_eq!(gcf(&[], None).code, 2);
    assert_eq!(gcf(&["stream", "--trailer", "fancy"], None).code, 2);
    for sub in [
        "encode",
        "decode",
        "encode-generic",
        "decode-generic",
        "stream",
        "delta",
        "pack-root",
        "validate",
        "stats",
    ] {
        let run = gcf(&[sub, "--help"], None);
        assert_eq!(run.code, 0, "{sub} --help");
        assert!(
            run.stdout.contains("Example"),
            "{sub} --help has no example:\n{}",
            run.stdout
        );
        assert!(
            run.stdout.contains(&format!("gcf {sub}")),
            "{sub} --help example"
        );
    }
    assert!(gcf(&["stats", "--help"], None).stdout.contains("bytes / 4"));
    // `gcf version`, as the reference SDKs' commands spell it, and `--version`.
    let version = gcf(&["version"], None);
    assert_eq!(version.code, 0);
    assert_eq!(version.stdout, gcf(&["--version"], None).stdout);
    assert!(
        version.stdout.starts_with("gcf ") && version.stdout.ends_with('\n'),
        "{}",
        version.stdout
    );
}

#[test]
fn decode_refuses_a_bare_session_reference_at_its_line() {
    // The JSON written has no place for it; dropping the line would lose the
    // symbol (the references refuse it too).
    let text = "GCF profile=graph tool=t symbols=2 session=true\n## targets\n@0  # previously transmitted\n@1 fn c 0.50 p\n";
    let run = gcf(&["decode"], Some(text.as_bytes()));
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .starts_with("error[invalid_node_line]: bare reference @0 ")
            && run.stderr.contains("(line 3, column 1)"),
        "{}",
        run.stderr
    );
    assert_eq!(gcf(&["validate"], Some(text.as_bytes())).code, 0);
}

#[test]
fn output_file_is_written_atomically() {
    let dir = TempDir::new();
    let target = dir.path("out.gcf");
    let run = gcf(
        &["encode", "--output", s(&target)],
        Some(PAYLOAD.as_bytes()),
    );
    assert_eq!(ok(&run), "");
    assert_eq!(fs::read_to_string(&target).unwrap(), PAYLOAD_GCF);
    assert_eq!(dir.entries(), ["out.gcf"]);

    // A failed run leaves the earlier file untouched and no temporary file.
    let run = gcf(&["-o", s(&target), "encode"], Some(b"{\"symbols\": 3}"));
    expect_error(&run, "invalid_input");
    assert_eq!(fs::read_to_string(&target).unwrap(), PAYLOAD_GCF);
    assert_eq!(dir.entries(), ["out.gcf"]);

    // ... and creates nothing when there was no file, even for a stream that
    // fails after writing part of its output.
    let fresh = dir.path("fresh.gcf");
    let late = format!("{STREAM}{{\"qualifiedName\":\"late\"}}\n");
    let run = gcf(&["stream", "--output", s(&fresh)], Some(late.as_bytes()));
    expect_error(&run, "invalid_state");
    assert!(!fresh.exists());
    assert_eq!(dir.entries(), ["out.gcf"]);

    let run = gcf(
        &["encode", "--output", "/nonexistent/dir/out.gcf"],
        Some(PAYLOAD.as_bytes()),
    );
    expect_error(&run, "io");
}

#[test]
fn broken_pipe_exits_quietly() {
    let mut child = Command::new(GCF)
        .args(["decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A payload whose JSON is far larger than a pipe buffer.
    let encoded = gcf(&["encode", &example("codegraph.json")], None);
    let input = ok(&encoded).as_bytes().to_vec();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"{\n  \"tool\": \"con");
    drop(stdout); // like `| head -c 16`
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    writer.join().unwrap();
    assert_eq!(stderr, "");
    assert!(status.success(), "{status:?}");
}

// --- examples ------------------------------------------------------------------

fn json_file(path: &str) -> Json {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn example_codegraph_encodes_and_decodes_back() {
    let input = json_file(&example("codegraph.json"));
    let text = ok(&gcf(&["encode", &example("codegraph.json")], None)).to_owned();
    let (symbols, edges, locations) = (
        input["symbols"].as_array().unwrap().len(),
        input["edges"].as_array().unwrap().len(),
        input["locations"].as_array().unwrap().len(),
    );
    assert!(
        symbols >= 200 && edges >= 2 * symbols,
        "{symbols} symbols, {edges} edges"
    );
    assert_eq!(
        ok(&gcf(&["validate"], Some(text.as_bytes()))),
        format!("ok: graph payload, {symbols} symbols, {edges} edges, {locations} locations\n")
    );
    let decoded: Json = serde_json::from_str(ok(&gcf(&["decode"], Some(text.as_bytes())))).unwrap();
    let again = gcf_core::graph::payload_from_json(&decoded).unwrap();
    let original = gcf_core::graph::payload_from_json(&input).unwrap();
    assert_eq!(again.symbols, original.symbols);
    let key = |e: &gcf_core::graph::Edge| {
        (
            e.source.clone(),
            e.target.clone(),
            e.edge_type.clone(),
            e.status.clone(),
        )
    };
    let mut a: Vec<_> = again.edges.iter().map(key).collect();
    let mut b: Vec<_> = original.edges.iter().map(key).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    assert_eq!(again.locations, original.locations);
    let stats = gcf(&["stats", &example("codegraph.json")], None);
    assert!(ok(&stats).starts_with("profile: graph\n"));
}

#[test]
fn example_orders_round_trips_through_the_generic_profile() {
    let text = ok(&gcf(&["encode-generic", &example("orders.json")], None)).to_owned();
    assert!(ok(&gcf(&["validate"], Some(text.as_bytes())))
        .starts_with("ok: generic payload, object with 3 keys"));
    let back: Json =
        serde_json::from_str(ok(&gcf(&["decode-generic"], Some(text.as_bytes())))).unwrap();
    let original = json_file(&example("orders.json"));
    // Numbers compare by value (`259.0` and `259` are the same double).
    assert_eq!(
        generic::from_json(&back).unwrap(),
        generic::from_json(&original).unwrap()
    );
    assert_eq!(original["orders"].as_array().unwrap().len(), 50);
}

#[test]
fn example_stream_jsonl_streams_and_validates() {
    let lines = fs::read_to_string(example("stream.jsonl")).unwrap();
    let symbols = lines
        .lines()
        .filter(|l| l.contains("qualifiedName"))
        .count();
    let edges = lines.lines().filter(|l| l.contains("sourceId")).count();
    let run = gcf(
        &[
            "stream",
            &example("stream.jsonl"),
            "--tool",
            "context_for_task",
        ],
        None,
    );
    let text = ok(&run);
    assert!(
        text.contains(&format!("##! summary symbols={symbols} edges={edges} ")),
        "{}",
        &text[text.len() - 200..]
    );
    assert!(
        ok(&gcf(&["validate"], Some(text.as_bytes()))).starts_with(&format!(
            "ok: graph payload, {symbols} symbols, {edges} edges"
        ))
    );
    // The same stream, edges by name through the index, gives the same payload.
    let by_name = gcf(
        &[
            "stream",
            &example("stream.jsonl"),
            "--tool",
            "context_for_task",
            "--index-names",
        ],
        None,
    );
    assert_eq!(ok(&by_name), text);
}

#[test]
fn example_employees_streams_as_rows() {
    let run = gcf(
        &[
            "stream",
            "--profile",
            "generic",
            "--name",
            "employees",
            &example("employees.jsonl"),
        ],
        None,
    );
    let text = ok(&run);
    assert!(text.starts_with(
        "GCF profile=generic\n## employees [?]{id,name,department,salary,rating,remote,manager}\n"
    ));
    assert!(text.ends_with("##! summary counts=120\n"));
    let back: Json =
        serde_json::from_str(ok(&gcf(&["decode-generic"], Some(text.as_bytes())))).unwrap();
    let rows = back["employees"].as_array().unwrap();
    assert_eq!(rows.len(), 120);
    let source: Vec<Json> = fs::read_to_string(example("employees.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (row, original) in rows.iter().zip(&source) {
        assert_eq!(
            generic::from_json(row).unwrap(),
            generic::from_json(original).unwrap()
        );
    }
}

// --- constant memory -------------------------------------------------------------

/// Writes `symbols` symbol lines and as many edge lines (by id) to `path`.
fn write_graph_lines(path: &Path, symbols: usize) {
    let mut out = std::io::BufWriter::new(fs::File::create(path).unwrap());
    for i in 0..symbols {
        writeln!(
            out,
            r#"{{"qualifiedName":"github.com/acme/big/internal/pkg{}.Type{i}.Method","kind":"method","score":0.5,"provenance":"lsp","distance":{}}}"#,
            i % 97,
            i * 4 / symbols
        )
        .unwrap();
    }
    for i in 0..symbols {
        writeln!(
            out,
            r#"{{"sourceId":{i},"targetId":{},"edgeType":"calls"}}"#,
            (i * 7 + 1) % symbols
        )
        .unwrap();
    }
    out.flush().unwrap();
}

/// Runs `gcf stream INPUT --output OUTPUT` and returns the child's peak RSS in KiB.
// The child is reaped by `wait4` (which also reports its rusage), not by
// `Child::wait`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn stream_peak_rss_kib(input: &Path, output: &Path) -> i64 {
    let child = Command::new(GCF)
        .args(["stream", s(input), "--output", s(output)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain old data, zeroed is a valid value, and wait4
    // only writes to the two pointers we pass for the child we spawned.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: see above; `pid` is our own unwaited child.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "gcf stream failed"
    );
    usage.ru_maxrss // KiB on Linux
}

fn trailer(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    text.lines().last().unwrap().to_owned()
}

#[test]
fn stream_memory_does_not_grow_with_the_input() {
    let dir = TempDir::new();
    let (small, large) = (dir.path("small.jsonl"), dir.path("large.jsonl"));
    write_graph_lines(&small, 10_000);
    write_graph_lines(&large, 200_000);
    assert!(
        fs::metadata(&large).unwrap().len() > 20 << 20,
        "a multi-megabyte input"
    );
    let small_rss = stream_peak_rss_kib(&small, &dir.path("small.gcf"));
    let large_rss = stream_peak_rss_kib(&large, &dir.path("large.gcf"));
    assert_eq!(
        trailer(&dir.path("large.gcf")),
        "##! summary symbols=200000 edges=200000 counts=50000,50000,50000,50000,200000"
    );
    assert_eq!(
        trailer(&dir.path("small.gcf")),
        "##! summary symbols=10000 edges=10000 counts=2500,2500,2500,2500,10000"
    );
    let growth = large_rss - small_rss;
    assert!(
        growth < 8 * 1024,
        "peak RSS grew by {growth} KiB (small {small_rss} KiB, large {large_rss} KiB)"
    );
}

#[test]
fn decode_limits_on_every_command_that_reads_gcf() {
    let graph = ok(&gcf(&["encode", &example("codegraph.json")], None)).to_owned();
    let orders = ok(&gcf(&["encode-generic", &example("orders.json")], None)).to_owned();
    // Limits the input passes change nothing.
    assert_eq!(
        ok(&gcf(
            &["decode", "--max-depth", "8"],
            Some(graph.as_bytes())
        )),
        ok(&gcf(&["decode"], Some(graph.as_bytes())))
    );
    let len = orders.len().to_string();
    assert_eq!(
        ok(&gcf(
            &["decode-generic", "--max-input-len", &len],
            Some(orders.as_bytes())
        )),
        ok(&gcf(&["decode-generic"], Some(orders.as_bytes())))
    );
    // Input past one is limit_exceeded, with its line where there is one.
    let cases: [(&[&str], &str, &str); 5] = [
        (&["decode", "--max-container-len", "1"], &graph, "(line "),
        (
            &["decode", "--max-line-len", "8"],
            &graph,
            "(line 1, column 1)",
        ),
        (
            &["decode-generic", "--max-container-len", "1"],
            &orders,
            "(line ",
        ),
        (&["validate", "--max-fields", "1"], &orders, "(line "),
        (
            &["validate", "--max-input-len", "10"],
            &graph,
            "over the configured limit of 10",
        ),
    ];
    for (args, input, says) in cases {
        let line = expect_error(&gcf(args, Some(input.as_bytes())), "limit_exceeded");
        assert!(line.contains(says), "{args:?}: {line}");
    }
    // Input past `--max-input-len` is not read to its end: the command stops
    // one byte past the limit, so a writer of 64 MiB sees the pipe close.
    for command in ["validate", "decode", "decode-generic"] {
        let mut child = Command::new(GCF)
            .args([command, "--max-input-len", "1000"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn gcf");
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(&vec![b'a'; 64 << 20]));
        let output = child.wait_with_output().unwrap();
        let written = writer.join().unwrap();
        assert!(
            written.is_err(),
            "{command} read all 64 MiB past a limit of 1,000 bytes"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(
                "error[limit_exceeded]: input is over the configured limit of 1000 bytes"
            ),
            "{command}: {stderr}"
        );
    }
    // Impossible limits are usage errors (exit 2), named as the flag.
    for (args, says) in [
        (
            ["validate", "--max-depth", "0"],
            "error[usage]: limits: --max-depth must be from 1 to 128, not 0",
        ),
        (
            ["decode", "--max-depth", "129"],
            "error[usage]: limits: --max-depth must be from 1 to 128, not 129",
        ),
        (
            ["decode-generic", "--max-fields", "0"],
            "error[usage]: limits: --max-fields must be at least 1, not 0",
        ),
    ] {
        let run = gcf(&args, Some(orders.as_bytes()));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.trim_end(), says);
    }
    let run = gcf(&["decode", "--max-depth", "-1"], Some(graph.as_bytes()));
    assert_eq!(run.code, 2, "{}", run.stderr);
}
