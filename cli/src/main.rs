//! `gcf`: the GCF command-line tool.
//!
//! A thin shell over `gcf-core`: it reads files and stdin, converts JSON to
//! core types and back, and turns errors into one stderr line and an exit
//! code. All format logic lives in the core crate.
//!
//! Exit codes: 0 success (also when stdout's reader went away), 1 data or
//! I/O error, 2 usage error.

mod args;
mod failure;
mod generic;
mod graph;
mod inspect;
mod io;
mod stream;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command, Profile};
use failure::{Failure, Result};
use io::{Output, Source};

fn main() -> ExitCode {
    install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go to stdout with 0, usage errors to stderr with 2.
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(()) | Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(failure) => {
            let _ = writeln!(std::io::stderr().lock(), "{failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}

/// A bug must still end in one `error[internal]` line and exit code 1,
/// never a backtrace, and must not leave a temporary output file behind.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unexpected failure".to_owned());
        io::remove_pending_temp();
        let _ = writeln!(
            std::io::stderr().lock(),
            "error[internal]: {}",
            message.replace('\n', " ")
        );
        std::process::exit(1);
    }));
}

fn run(cli: Cli) -> Result<()> {
    let source = |path: &Option<std::path::PathBuf>| Source::new(path.as_deref());
    let mut out = Output::open(cli.output.as_deref())?;
    match &cli.command {
        Command::Encode { file } => graph::encode(&source(file), &mut out)?,
        Command::Decode { file, limits } => {
            graph::decode(&source(file), &limits.to_core()?, &mut out)?
        }
        Command::EncodeGeneric {
            file,
            no_constant_columns,
            no_flatten,
            group_by,
        } => generic::encode(
            &source(file),
            generic::Forms {
                constant_columns: !no_constant_columns,
                flatten: !no_flatten,
            },
            group_by.as_ref(),
            &mut out,
        )?,
        Command::DecodeGeneric {
            file,
            pretty,
            limits,
        } => generic::decode(&source(file), *pretty, &limits.to_core()?, &mut out)?,
        Command::Stream {
            file,
            profile: Profile::Graph,
            tool,
            budget,
            tokens,
            trailer,
            index_names,
            ..
        } => {
            let options = stream::GraphStream {
                tool,
                budget: *budget,
                tokens: *tokens,
                trailer: *trailer,
                index_names: *index_names,
            };
            stream::graph(&source(file), &options, &mut out)?
        }
        Command::Stream {
            file,
            profile: Profile::Generic,
            tool,
            name,
            fields,
            ..
        } => generic::stream(&source(file), tool, name, fields.as_deref(), &mut out)?,
        Command::Delta {
            base,
            new,
            echoed_root,
            generic: false,
        } => graph::delta(
            &Source::new(Some(base)),
            &source(new),
            echoed_root.as_deref(),
            &mut out,
        )?,
        Command::Delta {
            base,
            new,
            echoed_root,
            generic: true,
        } => generic::delta(
            &Source::new(Some(base)),
            &source(new),
            echoed_root.as_deref(),
            &mut out,
        )?,
        Command::PackRoot {
            file,
            generic: false,
        } => graph::pack_root(&source(file), &mut out)?,
        Command::PackRoot {
            file,
            generic: true,
        } => generic::pack_root(&source(file), &mut out)?,
        Command::Validate { file, limits } => {
            inspect::validate(&source(file), &limits.to_core()?, &mut out)?
        }
        Command::Stats {
            file,
            profile,
            tokenizer,
        } => inspect::stats(&source(file), *profile, *tokenizer, &mut out)?,
        Command::Version => out.write_text(concat!("gcf ", env!("CARGO_PKG_VERSION"), "\n"))?,
    }
    out.finish()
}
