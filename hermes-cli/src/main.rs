//! `hermes`: list, inspect and call tools through the hermes gateway.
//!
//! Exit codes: 0 success; 1 the command ran and the answer is "no" (a tool error);
//! 2 a usage or configuration error. Results go to stdout, everything else to stderr.
#![allow(clippy::print_stderr, reason = "the binary reports errors on stderr")]

mod cli;
mod commands;
mod home;
mod tools;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command, PermissionsCommand, TelemetryCommand, ToolCommand};

/// What a command decided, as an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// 0
    Success,
    /// 1: the command ran and the answer is no.
    No,
}

/// A usage or configuration error: exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    match run(cli) {
        Ok(Status::Success) => ExitCode::SUCCESS,
        Ok(Status::No) => ExitCode::from(1),
        Err(error) => {
            if is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            eprintln!("hermes: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<Status> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let registry = tools::registry()?;
    let mut stdout = io::stdout().lock();
    let status = match cli.command {
        Command::Tool(ToolCommand::List(args)) => {
            commands::tool::list(&registry, &args, &mut stdout)?
        }
        Command::Tool(ToolCommand::Schema(args)) => {
            commands::tool::schema(&registry, &args, &mut stdout)?
        }
        Command::Tool(ToolCommand::Call(args)) => {
            let mut stderr = io::stderr();
            runtime.block_on(commands::tool::call(
                registry,
                &args,
                &mut stdout,
                &mut stderr,
            ))?
        }
        Command::Tool(ToolCommand::Register(args)) => {
            commands::register::register(&registry, &args, &mut stdout)?
        }
        Command::Tool(ToolCommand::Unregister(args)) => {
            commands::register::unregister(&registry, &args, &mut stdout)?
        }
        Command::Permissions(PermissionsCommand::CheckCommand(args)) => {
            commands::permissions::check_command(&args, &mut stdout)?
        }
        Command::Permissions(PermissionsCommand::Check(args)) => {
            commands::permissions::check(&registry, &args, &mut stdout)?
        }
        Command::Run(args) => runtime.block_on(commands::run::run(registry, &args, &mut stdout))?,
        Command::Telemetry(TelemetryCommand::Report(args)) => {
            commands::telemetry::report(&args, &mut stdout)?
        }
        Command::Dashboard(args) => {
            runtime.block_on(commands::telemetry::dashboard(&args, &mut stdout))?
        }
        Command::Parse(args) => {
            commands::parse::parse(&args, &mut io::stdin().lock(), &mut stdout)?
        }
        Command::Mcp(cli::McpCommand::Serve(args)) => {
            // Stdout is the protocol: release this thread's lock on it, or the MCP
            // writer (on a blocking thread) would wait for it forever.
            drop(stdout);
            return runtime.block_on(commands::mcp::serve(registry, &args, &mut io::stderr()));
        }
    };
    stdout.flush()?;
    Ok(status)
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("HERMES_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // Logs carry arguments and error messages: PII and keys are masked before they
    // reach the terminal.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(hermes_telemetry::logs::MaskingWriter::new(io::stderr))
        .init();
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}
