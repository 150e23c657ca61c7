//! `code_execute`: real interpreters and compilers, in the sandbox when bubblewrap works
//! here (else under resource limits only; `code_unsandboxed.rs` forces that path).

use std::net::TcpListener;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::Bench;

/// Whether bubblewrap runs here with the sandbox's namespaces, as the tool's probe
/// checks it, and the tests were not told to do without it.
fn bubblewrap_works() -> bool {
    if std::env::var("HERMES_NO_SANDBOX").is_ok_and(|value| !value.is_empty() && value != "0") {
        return false;
    }
    Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--unshare-net",
            "--",
            "true",
        ])
        .output()
        .is_ok_and(|output| output.status.success())
}

async fn run(bench: &Bench, language: &str, code: &str) -> Value {
    bench
        .ok("code_execute", json!({"language": language, "code": code}))
        .await
}

#[tokio::test]
async fn hello_world_in_every_language() {
    let bench = Bench::new();
    for (language, code) in [
        ("python", "print('hello from python')"),
        ("javascript", "console.log('hello from javascript')"),
        ("bash", "echo \"hello from $0\" | sed 's/main.sh/bash/'"),
        ("rust", "fn main() { println!(\"hello from rust\"); }"),
    ] {
        let value = run(&bench, language, code).await;
        assert_eq!(
            value["stdout"],
            format!("hello from {language}\n"),
            "{value}"
        );
        assert_eq!(value["exit_code"], 0, "{value}");
        assert_eq!(value["stage"], "run");
        assert_eq!(value["timed_out"], false);
        assert_eq!(value["language"], language);
        let sandbox = value["sandbox"].as_str().unwrap();
        if bubblewrap_works() {
            assert_eq!(sandbox, "bubblewrap");
        } else {
            assert!(sandbox.starts_with("none (rlimits only): "), "{sandbox}");
        }
    }
    let module = run(
        &bench,
        "javascript",
        "import { sep } from 'node:path';\nconsole.log(sep);",
    )
    .await;
    assert_eq!(module["stdout"], "/\n", "{module}");
}

#[tokio::test]
async fn stdin_reaches_the_program() {
    let bench = Bench::new();
    let value = bench
        .ok(
            "code_execute",
            json!({"language": "python", "code": "import sys\nprint(sys.stdin.read().upper(), end='')", "stdin": "shout\n"}),
        )
        .await;
    assert_eq!(value["stdout"], "SHOUT\n");
}

#[tokio::test]
async fn errors_come_back_as_exit_codes() {
    let bench = Bench::new();
    let value = run(
        &bench,
        "python",
        "print('before')\nraise ValueError('broken on purpose')",
    )
    .await;
    assert_eq!(value["exit_code"], 1);
    assert_eq!(value["stdout"], "before\n");
    assert!(
        value["stderr"]
            .as_str()
            .unwrap()
            .contains("ValueError: broken on purpose")
    );
    let value = run(&bench, "python", "raise SystemExit(3)").await;
    assert_eq!(value["exit_code"], 3);
    let value = run(&bench, "bash", "echo oops >&2; exit 7").await;
    assert_eq!(
        (value["exit_code"].as_i64(), value["stderr"].as_str()),
        (Some(7), Some("oops\n"))
    );
}

#[tokio::test]
async fn rust_compile_errors_are_reported_as_such() {
    let bench = Bench::new();
    let value = run(&bench, "rust", "fn main() { let x: i32 = \"text\"; }").await;
    assert_eq!(value["stage"], "compile", "{value}");
    assert_ne!(value["exit_code"], 0);
    let stderr = value["stderr"].as_str().unwrap();
    assert!(stderr.contains("mismatched types"), "{stderr}");
    assert!(value["note"].as_str().unwrap().contains("did not compile"));
}

#[tokio::test]
async fn a_timeout_keeps_the_output_so_far() {
    let bench = Bench::new();
    let value = bench
        .ok(
            "code_execute",
            json!({"language": "python", "code": "import time\nprint('started')\ntime.sleep(60)\nprint('never')", "timeout_seconds": 1}),
        )
        .await;
    assert_eq!(value["timed_out"], true, "{value}");
    assert_eq!(value["stdout"], "started\n");
    assert_eq!(value["exit_code"], Value::Null);
    assert!(value["note"].as_str().unwrap().contains("longer than 1 s"));
}

#[tokio::test]
async fn huge_output_is_capped() {
    let bench = Bench::with_config(|config| config.max_output_bytes(4096));
    let value = run(
        &bench,
        "python",
        "import sys\nsys.stdout.write('x' * 5_000_000)\nprint('END')",
    )
    .await;
    assert_eq!(value["truncated"], true);
    let stdout = value["stdout"].as_str().unwrap();
    assert!(stdout.len() < 5000, "{}", stdout.len());
    assert!(stdout.contains("of 5000004 bytes cut"), "{stdout}");
    assert!(stdout.ends_with("END\n"));
}

#[tokio::test]
async fn the_environment_is_clean_and_the_scratch_directory_fresh() {
    let bench = Bench::new();
    std::fs::write(bench.path("data.txt"), "from the workspace").unwrap();
    let code = "import os\nprint(open(os.path.join(os.environ['HERMES_WORKSPACE'], 'data.txt')).read())\nprint(os.listdir('.'))\nopen('made.txt', 'w').write('ok')\nprint(os.path.basename(os.getcwd()).startswith('hermes-code-'))";
    let value = run(&bench, "python", code).await;
    assert_eq!(
        value["stdout"], "from the workspace\n['main.py']\nTrue\n",
        "{value}"
    );

    // node adds no variables of its own: what it sees is what it was given.
    let value = run(
        &bench,
        "javascript",
        "console.log(Object.keys(process.env).join(' '))",
    )
    .await;
    let allowed = [
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TZ",
        "TERM",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "CARGO_HOME",
        "PYENV_ROOT",
        "PYENV_VERSION",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "NODE_PATH",
        "NVM_DIR",
        "TMPDIR",
        "HERMES_WORKSPACE",
        "PYTHONDONTWRITEBYTECODE",
    ];
    let names = value["stdout"].as_str().unwrap();
    for name in names.split_whitespace() {
        assert!(
            allowed.contains(&name),
            "`{name}` leaked into the snippet: {names}"
        );
    }
    assert!(names.contains("HERMES_WORKSPACE"), "{names}");
}

#[tokio::test]
async fn the_sandbox_has_no_network_and_a_read_only_root() {
    if !bubblewrap_works() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let bench = Bench::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket, errno\n\
         def attempt(address):\n    \
             try:\n        \
                 socket.create_connection(address, timeout=5).close()\n        \
                 return 'connected'\n    \
             except OSError as error:\n        \
                 return errno.errorcode.get(error.errno, str(error))\n\
         print(attempt(('127.0.0.1', {port})))\n\
         print(attempt(('192.0.2.1', 9)))\n\
         try:\n    \
             open('/usr/hermes-probe', 'w')\n    \
             print('written')\n\
         except OSError as error:\n    \
             print(errno.errorcode[error.errno])\n"
    );
    let value = run(&bench, "python", &code).await;
    assert_eq!(value["sandbox"], "bubblewrap");
    assert_eq!(
        value["stdout"], "ECONNREFUSED\nENETUNREACH\nEROFS\n",
        "{value}"
    );
    drop(listener);
}

#[tokio::test]
async fn bad_arguments_are_refused_by_the_schema() {
    let bench = Bench::with_config(|config| {
        config.command_timeouts(
            std::time::Duration::from_secs(5),
            std::time::Duration::from_secs(20),
        )
    });
    bench
        .fails(
            "code_execute",
            json!({"language": "cobol", "code": "x"}),
            "invalid_arguments",
            "language",
        )
        .await;
    bench
        .fails(
            "code_execute",
            json!({"language": "python", "code": "print(1)", "timeout_seconds": 21}),
            "invalid_arguments",
            "timeout_seconds",
        )
        .await;
}
