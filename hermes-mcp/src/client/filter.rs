//! [`ToolFilter`]: which of a server's tools to take, by name or glob.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// Include and exclude patterns over the server's tool names. No include pattern means
/// every tool; exclude wins.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolFilter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl ToolFilter {
    pub(crate) fn new(include: &[String], exclude: &[String]) -> Result<Self, globset::Error> {
        Ok(Self {
            include: set(include)?,
            exclude: set(exclude)?,
        })
    }

    pub(crate) fn takes(&self, name: &str) -> bool {
        self.include.as_ref().is_none_or(|set| set.is_match(name))
            && !self.exclude.as_ref().is_some_and(|set| set.is_match(name))
    }
}

fn set(patterns: &[String]) -> Result<Option<GlobSet>, globset::Error> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(Glob::new(pattern)?);
    }
    builder.build().map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_then_exclude() {
        let owned = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        let filter = ToolFilter::new(&owned(&["echo", "get-*"]), &owned(&["get-env"])).unwrap();
        assert!(filter.takes("echo"));
        assert!(filter.takes("get-sum"));
        assert!(!filter.takes("get-env"));
        assert!(!filter.takes("add"));
        let all = ToolFilter::new(&[], &owned(&["*-secret"])).unwrap();
        assert!(all.takes("anything"));
        assert!(!all.takes("read-secret"));
    }
}
