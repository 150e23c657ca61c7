//! Tools that `#[tool]` registered at link time, collected with [`inventory`].

use std::sync::Arc;

use crate::{Error, Registry, Tool};

/// One `#[tool]` function linked into the binary: how to make it and where it was written.
#[doc(hidden)]
#[derive(Debug)]
pub struct LinkedTool {
    make: fn() -> Arc<dyn Tool>,
    location: &'static str,
}

impl LinkedTool {
    /// Used by `#[tool]`'s generated code.
    pub const fn new(make: fn() -> Arc<dyn Tool>, location: &'static str) -> Self {
        Self { make, location }
    }
}

inventory::collect!(LinkedTool);

impl Registry {
    /// A registry of every `#[tool]` function linked into this binary.
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateLinkedTool`] when two `#[tool]` functions share a name (the error
    /// says where both are); [`Error::InvalidSchema`] as for [`Registry::register`].
    pub fn from_linked() -> Result<Self, Error> {
        let registry = Self::new();
        registry.register_linked()?;
        Ok(registry)
    }

    /// Add every `#[tool]` function linked into this binary.
    ///
    /// # Errors
    ///
    /// As [`Registry::from_linked`]; also [`Error::DuplicateTool`] when a linked tool's
    /// name is already registered here. Tools added before the error stay registered.
    pub fn register_linked(&self) -> Result<(), Error> {
        let mut linked: Vec<(&'static str, Arc<dyn Tool>)> = inventory::iter::<LinkedTool>
            .into_iter()
            .map(|entry| (entry.location, (entry.make)()))
            .collect();
        linked.sort_by(|a, b| a.1.spec().name().cmp(b.1.spec().name()).then(a.0.cmp(b.0)));
        for pair in linked.windows(2) {
            if pair[0].1.spec().name() == pair[1].1.spec().name() {
                return Err(Error::DuplicateLinkedTool {
                    name: pair[0].1.spec().name().to_owned(),
                    first: pair[0].0,
                    second: pair[1].0,
                });
            }
        }
        for (_, tool) in linked {
            self.register_arc(tool)?;
        }
        Ok(())
    }
}
