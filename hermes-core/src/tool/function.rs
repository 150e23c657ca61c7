use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use super::{IntoToolOutput, ToolContext, ToolSpec, TypedTool};
use crate::ToolError;

/// A tool made from a spec and an async closure.
///
/// ```
/// use hermes_core::{FnTool, ToolError, ToolSpec};
/// use serde::Deserialize;
///
/// #[derive(Deserialize, schemars::JsonSchema)]
/// struct Args { text: String }
///
/// let spec = ToolSpec::builder("shout", "Upper-case a text.").parameters_for::<Args>().build()?;
/// let shout = FnTool::new(spec, |args: Args, _ctx| async move {
///     Ok::<_, ToolError>(args.text.to_uppercase())
/// });
/// # Ok::<(), hermes_core::Error>(())
/// ```
pub struct FnTool<F, A> {
    spec: ToolSpec,
    function: F,
    _args: PhantomData<fn(A)>,
}

impl<F, A> FnTool<F, A> {
    /// A tool that answers each call with `function(args, ctx)`. The context is passed
    /// by value (it is a handful of `Arc`s), so the returned future can own it.
    pub fn new<Fut>(spec: ToolSpec, function: F) -> Self
    where
        F: Fn(A, ToolContext) -> Fut,
    {
        Self {
            spec,
            function,
            _args: PhantomData,
        }
    }
}

impl<F, A> fmt::Debug for FnTool<F, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.spec.name())
            .finish_non_exhaustive()
    }
}

impl<F, A, Fut, O> TypedTool for FnTool<F, A>
where
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send,
    A: DeserializeOwned + Send + 'static,
    O: IntoToolOutput,
{
    type Args = A;
    type Output = O;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(
        &self,
        args: A,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<O, ToolError>> + Send {
        (self.function)(args, ctx.clone())
    }
}
