//! Tools: the object-safe [`Tool`] the registry stores, the typed [`TypedTool`] authors
//! write, [`FnTool`] for closures, and the [`ToolSpec`] that describes each.

mod context;
mod function;
mod future;
mod output;
mod spec;

use std::future::Future;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub(crate) use context::Gate;
pub use context::ToolContext;
pub use function::FnTool;
pub use future::ToolFuture;
pub use output::{IntoToolOutput, ToolOutput, truncate_middle};
pub use spec::{
    Access, ArgKind, DEFAULT_MAX_RESULT_BYTES, DEFAULT_TIMEOUT, Scope, ToolSpec, ToolSpecBuilder,
    is_valid_tool_name, schema_for,
};

use crate::ToolError;

/// A tool as the registry and the gateway see it: JSON in, text out.
///
/// Most authors implement [`TypedTool`] (or use `#[tool]`) instead; every `TypedTool`
/// is a `Tool`. Implement `Tool` directly for tools that work on raw JSON, or for
/// synchronous tools that should cost the gateway no allocation:
///
/// ```
/// use hermes_core::{Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec, parse_args};
/// use serde_json::Value;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Args { text: String }
///
/// struct Length(ToolSpec);
///
/// impl Tool for Length {
///     fn spec(&self) -> &ToolSpec { &self.0 }
///     fn run<'a>(&'a self, args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
///         ToolFuture::ready(
///             parse_args::<Args>(args).and_then(|args| ToolOutput::json(&args.text.chars().count())),
///         )
///     }
/// }
/// ```
///
/// Lifecycle: [`setup`](Tool::setup) runs once, before the first call; a tool whose
/// setup fails is unavailable and every call gets that reason. [`teardown`](Tool::teardown)
/// runs once its registration is gone (replaced, unregistered, registry shut down) and
/// its last call has ended.
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The tool's description, schema and settings.
    fn spec(&self) -> &ToolSpec;

    /// Acquire what the tool needs (a connection, a model). Runs once.
    ///
    /// # Errors
    ///
    /// The reason the tool cannot be used; calls will report it.
    async fn setup(&self) -> Result<(), ToolError> {
        Ok(())
    }

    /// Serve one call. `args` already passed the schema in [`spec`](Tool::spec).
    ///
    /// Return [`ToolFuture::ready`] with the result when it is computed at once, or
    /// [`ToolFuture::new`] around the async work. A [`ToolError`] in either becomes a
    /// structured message for the model.
    fn run<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> ToolFuture<'a>;

    /// Release what `setup` acquired. Runs once, after the last call.
    async fn teardown(&self) {}
}

/// A tool with typed arguments and a typed result.
///
/// The gateway has already validated the JSON against the spec's schema; the blanket
/// `impl Tool for T` then deserializes it into `Args` and serializes the `Output`.
///
/// ```
/// use hermes_core::{ToolContext, ToolError, ToolSpec, TypedTool};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
///
/// struct Add(ToolSpec);
///
/// impl TypedTool for Add {
///     type Args = AddArgs;
///     type Output = i64;
///     fn spec(&self) -> &ToolSpec { &self.0 }
///     async fn call(&self, args: AddArgs, _ctx: &ToolContext) -> Result<i64, ToolError> {
///         args.a.checked_add(args.b).ok_or_else(|| ToolError::failed("the sum overflows"))
///     }
/// }
///
/// let add = Add(ToolSpec::builder("add", "Add two integers.").parameters_for::<AddArgs>().build()?);
/// # Ok::<(), hermes_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a typed tool",
    note = "implement `TypedTool` (spec + call) for it, or implement `Tool` to work on raw JSON"
)]
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments, deserialized from the validated JSON.
    type Args: DeserializeOwned + Send;
    /// The result: any `Serialize` type, or a [`ToolOutput`].
    type Output: IntoToolOutput;

    /// The tool's description, schema and settings.
    fn spec(&self) -> &ToolSpec;

    /// Serve one call.
    fn call(
        &self,
        args: Self::Args,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// See [`Tool::setup`].
    fn setup(&self) -> impl Future<Output = Result<(), ToolError>> + Send {
        async { Ok(()) }
    }

    /// See [`Tool::teardown`].
    fn teardown(&self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

#[async_trait]
impl<T: TypedTool> Tool for T {
    fn spec(&self) -> &ToolSpec {
        TypedTool::spec(self)
    }

    async fn setup(&self) -> Result<(), ToolError> {
        TypedTool::setup(self).await
    }

    fn run<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::new(async move {
            let args: T::Args = parse_args(args)?;
            self.call(args, ctx).await?.into_tool_output()
        })
    }

    async fn teardown(&self) {
        TypedTool::teardown(self).await;
    }
}

/// Read validated arguments into a Rust type.
///
/// # Errors
///
/// [`ToolError::InvalidArguments`] when the JSON does not fit `T` (a schema looser than
/// the type, say).
pub fn parse_args<T: DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(ToolError::invalid_arguments)
}

impl std::fmt::Debug for dyn Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let spec = self.spec();
        f.debug_struct("Tool")
            .field("name", &spec.name())
            .field("scope", &spec.scope())
            .finish_non_exhaustive()
    }
}
