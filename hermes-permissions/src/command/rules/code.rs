//! Rules about code that cannot be reviewed as a command line: inline
//! scripts for shells and interpreters, `eval`, and anything downloaded and
//! executed in one go (`curl | sh`, `bash <(curl ...)`,
//! `sh -c "$(curl ...)"`).
//!
//! Shell scripts given inline are also judged recursively, so
//! `bash -c "rm -rf /"` is as hardline as `rm -rf /`.

use super::super::split::{SimpleCommand, Word};
use super::super::wrappers::{basename, join_orig, peel};
use super::{CURL_PIPE_SHELL, EVAL, INLINE_CODE, SHELL_C};
use super::{Ctx, Invocation, sql};

/// Programs that fetch URLs.
const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch"];

/// Per-pipeline state, filled as its commands are judged in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct PipeState {
    /// A downloader writing into this pipeline.
    downloader: Option<String>,
    /// Text printed into this pipeline by `echo`/`printf`/here-documents,
    /// checked when a SQL client reads it.
    sql_feed: String,
}

/// Shells whose `-c` runs a script.
pub(crate) fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish"
    )
}

fn is_python(program: &str) -> bool {
    ["python", "pypy"].iter().any(|name| {
        program
            .strip_prefix(name)
            .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
    })
}

/// Interpreters with an option for inline code.
pub(crate) fn is_inline_interpreter(program: &str) -> bool {
    is_python(program) || matches!(program, "perl" | "ruby" | "node" | "nodejs" | "bun" | "php")
}

fn is_downloader(program: &str) -> bool {
    DOWNLOADERS.contains(&program)
}

/// The downloader among `commands`, looking through wrappers.
fn downloader_in(commands: &[SimpleCommand]) -> Option<&str> {
    commands.iter().find_map(|command| {
        let first = peel(&command.words).rest.first()?;
        let program = basename(&first.text);
        is_downloader(program).then_some(program)
    })
}

/// Pipeline rules: a downloader feeding an interpreter, SQL fed to a client.
pub(crate) fn pipeline(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>, pipe: &mut PipeState) {
    let program = inv.program;
    if (is_shell(program) || is_inline_interpreter(program))
        && reads_program_from_stdin(inv)
        && let Some(downloader) = &pipe.downloader
    {
        ctx.hit(
            &CURL_PIPE_SHELL,
            inv,
            format!("`{downloader}` output is piped into `{program}`, running code straight from the network unreviewed"),
        );
    }
    if is_downloader(program) && pipe.downloader.is_none() {
        pipe.downloader = Some(program.to_owned());
    }
    if matches!(program, "echo" | "printf") {
        for arg in inv.args() {
            pipe.sql_feed.push_str(&arg.text);
            pipe.sql_feed.push(' ');
        }
        pipe.sql_feed.push(';');
    } else if program == "cat"
        && let Some(body) = &ctx.cmd.heredoc
    {
        pipe.sql_feed.push_str(&body.to_lowercase());
        pipe.sql_feed.push(';');
    }
    if sql::is_client(program) && !pipe.sql_feed.is_empty() {
        sql::check_text(ctx, inv, &pipe.sql_feed, "the SQL piped into it");
    }
}

/// Whether the interpreter would read its program from standard input.
fn reads_program_from_stdin(inv: &Invocation<'_>) -> bool {
    let program = inv.program;
    let shell = is_shell(program);
    let mut args = inv.args().iter();
    while let Some(word) = args.next() {
        let t = word.orig.as_str();
        if t == "-" {
            return true;
        }
        if t == "--" {
            return args.next().is_none_or(|w| w.orig == "-");
        }
        if let Some(long) = t.strip_prefix("--") {
            if matches!(long, "eval" | "print" | "command")
                || long.starts_with("eval=")
                || long.starts_with("print=")
            {
                return false;
            }
            if shell && matches!(long, "rcfile" | "init-file") {
                args.next();
            }
            continue;
        }
        let flags = match t.strip_prefix('-') {
            Some(flags) if !flags.is_empty() => flags,
            _ if shell && t.len() > 1 && t.starts_with('+') => t.get(1..).unwrap_or_default(),
            // An operand: the script file.
            _ => return false,
        };
        if shell {
            if flags.contains('c') {
                return false;
            }
            if flags.contains('s') {
                return true;
            }
            if matches!(flags, "o" | "O") {
                args.next();
            }
        } else if is_python(program) {
            if flags.contains(['c', 'm']) {
                return false;
            }
            if matches!(flags, "W" | "X") {
                args.next();
            }
        } else if has_inline_flag(program, t) {
            return false;
        }
    }
    true
}

/// Whether the option word `t` introduces inline code for `program`.
fn has_inline_flag(program: &str, t: &str) -> bool {
    let Some(flags) = t
        .strip_prefix('-')
        .filter(|f| !f.is_empty() && !f.starts_with('-'))
    else {
        return matches!(t, "--eval" | "--print")
            || t.starts_with("--eval=")
            || t.starts_with("--print=");
    };
    match program {
        p if is_python(p) => flags.contains('c'),
        // For perl and ruby, options like -I, -M and -r swallow the rest of
        // the cluster, so an `e` there is part of a value.
        "perl" => {
            !flags.starts_with(['i', 'I', 'M', 'm', 'x', 'C', 'd', 'D'])
                && flags.contains(['e', 'E'])
        }
        "ruby" => {
            !flags.starts_with(['I', 'r', 'E', 'C', 'F', 'K', 'T', 'W', 'x']) && flags.contains('e')
        }
        "node" | "nodejs" | "bun" => flags.chars().all(|c| matches!(c, 'e' | 'p')),
        "php" => matches!(flags, "r" | "R" | "B" | "E"),
        _ => false,
    }
}

/// `sh -c`, `bash -c`, ...: opaque code, judged recursively too.
pub(crate) fn shell(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    let mut has_c = false;
    let mut operand: Option<&Word> = None;
    let mut reads_stdin = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let t = word.orig.as_str();
        if t == "-" {
            reads_stdin = true;
            break;
        }
        if t == "--" {
            operand = args.get(i + 1);
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            if long == "command" {
                has_c = true;
            }
            i += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        if t.len() > 1 && (t.starts_with('-') || t.starts_with('+')) {
            let flags = t.get(1..).unwrap_or_default();
            has_c |= flags.contains('c');
            reads_stdin |= flags.contains('s');
            i += if matches!(flags, "o" | "O") { 2 } else { 1 };
            continue;
        }
        operand = Some(word);
        break;
    }
    let program = inv.program;
    if has_c {
        if let Some(code) = operand {
            if let Some(downloader) = downloader_in(ctx.substituted(code)) {
                ctx.hit(
                    &CURL_PIPE_SHELL,
                    inv,
                    format!("`{program} -c` runs a script fetched with `{downloader}`, straight from the network"),
                );
            }
            ctx.nested(&code.orig);
        }
        ctx.hit(
            &SHELL_C,
            inv,
            format!(
                "`{}` runs an inline shell script that is hard to review",
                inv.snippet()
            ),
        );
    } else if let Some(script) = operand.filter(|_| !reads_stdin) {
        if script.proc_subst
            && let Some(downloader) = downloader_in(ctx.substituted(script))
        {
            ctx.hit(
                &CURL_PIPE_SHELL,
                inv,
                format!("`{program}` runs a script streamed from `{downloader}`, straight from the network"),
            );
        }
    } else if let Some(body) = ctx.stdin_text() {
        if let Some(downloader) = ctx
            .here_string()
            .and_then(|w| downloader_in(ctx.substituted(w)))
        {
            ctx.hit(
                &CURL_PIPE_SHELL,
                inv,
                format!("`{program}` runs a script fetched with `{downloader}`, straight from the network"),
            );
        }
        ctx.nested(&body);
        ctx.hit(
            &SHELL_C,
            inv,
            format!("`{program}` runs a script given inline on its standard input"),
        );
    }
}

/// `eval`: the joined arguments are a command line.
pub(crate) fn eval(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    if let Some(downloader) = args.iter().find_map(|w| downloader_in(ctx.substituted(w))) {
        ctx.hit(
            &CURL_PIPE_SHELL,
            inv,
            format!("`eval` runs a script fetched with `{downloader}`, straight from the network"),
        );
    }
    ctx.nested(&join_orig(args));
    ctx.hit(
        &EVAL,
        inv,
        format!("`{}` runs a command line built at run time", inv.snippet()),
    );
}

/// `source <(curl ...)`, `. <(wget -O- ...)`.
pub(crate) fn source(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    if let Some(script) = inv.args().first().filter(|w| w.proc_subst)
        && let Some(downloader) = downloader_in(ctx.substituted(script))
    {
        ctx.hit(
            &CURL_PIPE_SHELL,
            inv,
            format!(
                "`{}` runs a script streamed from `{downloader}` in the current shell",
                inv.program
            ),
        );
    }
}

/// `python -c`, `perl -e`, `ruby -e`, `node -e`, `php -r`, or a script on
/// standard input from a here-document.
pub(crate) fn inline_code(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let program = inv.program;
    let inline = inv
        .args()
        .iter()
        .take_while(|w| w.orig.starts_with('-') && w.orig != "-" && w.orig != "--")
        .any(|w| has_inline_flag(program, &w.orig));
    if inline {
        ctx.hit(
            &INLINE_CODE,
            inv,
            format!(
                "`{}` runs inline {program} code that cannot be reviewed as a command",
                inv.snippet()
            ),
        );
    } else if reads_program_from_stdin(inv) && ctx.stdin_text().is_some() {
        ctx.hit(
            &INLINE_CODE,
            inv,
            format!("`{program}` runs a program given inline on its standard input"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::split::first_words;
    use super::*;

    fn stdin(line: &str) -> bool {
        let words = first_words(line);
        Invocation::new(&words, None).is_some_and(|inv| reads_program_from_stdin(&inv))
    }

    #[test]
    fn interpreters_reading_stdin() {
        assert!(stdin("sh"));
        assert!(stdin("bash -s -- --yes"));
        assert!(stdin("bash -e -"));
        assert!(stdin("python3"));
        assert!(stdin("python3 -u -"));
        assert!(stdin("node"));
        assert!(!stdin("bash script.sh"));
        assert!(!stdin("sh -c 'ls'"));
        assert!(!stdin("python3 -m json.tool"));
        assert!(!stdin("python3 x.py"));
        assert!(!stdin("perl -ne 'print'"));
        assert!(!stdin("node -e 1"));
    }

    #[test]
    fn inline_flags() {
        assert!(has_inline_flag("python3", "-c"));
        assert!(has_inline_flag("python3", "-Bc"));
        assert!(has_inline_flag("perl", "-e"));
        assert!(has_inline_flag("perl", "-lane"));
        assert!(!has_inline_flag("perl", "-Mfeature"));
        assert!(has_inline_flag("ruby", "-e"));
        assert!(has_inline_flag("node", "--eval"));
        assert!(has_inline_flag("node", "-pe"));
        assert!(has_inline_flag("php", "-r"));
        assert!(!has_inline_flag("php", "-f"));
        assert!(!has_inline_flag("python3", "-u"));
    }
}
