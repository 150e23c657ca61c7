//! Drives one assessment: normalise, split, judge every simple command, and
//! keep the most severe finding (the earliest one on ties).
//!
//! Inline scripts (`bash -c`, `eval`, ...) re-enter [`Engine::assess_source`]
//! one level deeper; the depth cap bounds both the recursion and the total
//! work.

use super::forkbomb::{self, ForkBomb};
use super::normalize::normalize_keep_case;
use super::rules::{self, PipeState, Rule};
use super::split;
use super::{Assessment, Verdict};

/// Deepest nesting of substitutions and inline scripts that is followed.
pub(crate) const MAX_DEPTH: usize = 8;

/// Longest input that is parsed at all.
pub(crate) const MAX_INPUT_BYTES: usize = 64 * 1024;

/// One rule match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) verdict: Verdict,
    pub(crate) rule: &'static str,
    pub(crate) reason: String,
    pub(crate) class: String,
}

impl Finding {
    pub(crate) fn new(rule: &Rule, reason: String, class: String) -> Self {
        Self {
            verdict: rule.verdict,
            rule: rule.id,
            reason,
            class,
        }
    }
}

/// State of one assessment.
#[derive(Debug, Default)]
pub(crate) struct Engine {
    best: Option<Finding>,
    /// The class of every dangerous command (the first, most specific finding for each
    /// program), so an approval covers exactly the set.
    dangerous: Vec<String>,
    /// First program at the top level, for the class of a safe line.
    first_program: Option<String>,
}

/// Entry point behind [`super::assess`].
pub(crate) fn assess(command: &str) -> Assessment {
    if command.len() > MAX_INPUT_BYTES {
        return Assessment {
            verdict: rules::TOO_LONG.verdict,
            rule: rules::TOO_LONG.id,
            reason: format!(
                "the command is {} bytes long, more than the {} KiB that are assessed, so it was not checked",
                command.len(),
                MAX_INPUT_BYTES / 1024
            ),
            class: rules::TOO_LONG.id.to_owned(),
        };
    }
    let mut engine = Engine::default();
    engine.assess_source(command, 0);
    engine.finish()
}

impl Engine {
    /// Record a finding; it replaces the current one only if more severe.
    pub(crate) fn offer(&mut self, finding: Finding) {
        if finding.verdict == Verdict::Dangerous {
            let program = |class: &str| {
                class
                    .split_once(':')
                    .map_or(String::new(), |(_, p)| p.to_owned())
            };
            let key = program(&finding.class);
            if !self.dangerous.iter().any(|class| program(class) == key) {
                self.dangerous.push(finding.class.clone());
            }
        }
        let better = match &self.best {
            None => finding.verdict != Verdict::Safe,
            Some(best) => finding.verdict.severity() > best.verdict.severity(),
        };
        if better {
            self.best = Some(finding);
        }
    }

    /// Nothing can beat what was already found.
    pub(crate) fn is_settled(&self) -> bool {
        self.best
            .as_ref()
            .is_some_and(|b| b.verdict == Verdict::Hardline)
    }

    /// Remember the first top-level program (for `safe:<program>`).
    pub(crate) fn note_program(&mut self, program: &str) {
        if self.first_program.is_none() {
            self.first_program = Some(program.chars().take(64).collect());
        }
    }

    /// Judge a command line found `depth` levels deep.
    pub(crate) fn assess_source(&mut self, text: &str, depth: usize) {
        if self.is_settled() {
            return;
        }
        if depth > MAX_DEPTH {
            self.too_deep();
            return;
        }
        let source = normalize_keep_case(text);
        rules::sql::whole_text(self, &source);
        let mut bomb = forkbomb::find(&source);
        let parsed = split::parse(&source, depth);
        let mut pipes = vec![PipeState::default(); parsed.pipelines];
        for (index, command) in parsed.commands.iter().enumerate() {
            if self.is_settled() {
                return;
            }
            if let Some(found) = bomb.take_if(|b| command.start >= b.position) {
                self.fork_bomb(&found);
            }
            rules::judge_command(self, &parsed, index, &mut pipes);
        }
        if let Some(found) = bomb {
            self.fork_bomb(&found);
        }
        if parsed.too_deep {
            self.too_deep();
        }
    }

    fn fork_bomb(&mut self, bomb: &ForkBomb) {
        let rule = &rules::FORK_BOMB;
        let name: String = bomb.name.chars().take(32).collect();
        self.offer(Finding::new(
            rule,
            format!("the function `{name}` pipes itself into itself in the background, a fork bomb that exhausts the process table"),
            format!("{}:{name}", rule.id),
        ));
    }

    /// Report that nesting went past [`MAX_DEPTH`].
    pub(crate) fn too_deep(&mut self) {
        let rule = &rules::TOO_DEEP;
        self.offer(Finding::new(
            rule,
            format!("the command nests substitutions or inline scripts more than {MAX_DEPTH} levels deep, so the innermost part was not checked"),
            rule.id.to_owned(),
        ));
    }

    /// The assessment for everything offered so far.
    pub(crate) fn finish(mut self) -> Assessment {
        match self.best {
            Some(finding) if finding.verdict == Verdict::Dangerous && self.dangerous.len() > 1 => {
                // Several dangerous commands in one line: the class names them all, so a
                // session grant for one of them does not pass the others.
                self.dangerous.sort();
                Assessment {
                    verdict: finding.verdict,
                    rule: finding.rule,
                    reason: finding.reason,
                    class: self.dangerous.join(" + "),
                }
            }
            Some(finding) => Assessment {
                verdict: finding.verdict,
                rule: finding.rule,
                reason: finding.reason,
                class: finding.class,
            },
            None => Assessment {
                verdict: Verdict::Safe,
                rule: "safe",
                reason: "no dangerous pattern was found".to_owned(),
                class: format!("safe:{}", self.first_program.unwrap_or_default()),
            },
        }
    }
}
