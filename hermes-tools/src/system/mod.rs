//! The `system` family.

use std::sync::Arc;

use hermes_core::Tool;

use crate::common::Shared;

/// Every tool of the family.
pub(crate) fn tools(shared: &Arc<Shared>) -> Vec<Arc<dyn Tool>> {
    let _ = shared;
    Vec::new()
}
