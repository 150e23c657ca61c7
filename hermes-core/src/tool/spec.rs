use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::Error;

/// The default per-call timeout: 10 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default cap on a result's size: 64 KiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 64 * 1024;

/// How much harm a call can do, which decides how the gateway treats it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Reads only; runs directly once the policy allows it.
    #[default]
    Read,
    /// Changes something; carries an idempotency key so a repeated call runs once.
    Write,
    /// Can do lasting harm; always needs approval.
    Dangerous,
}

impl Scope {
    /// `read`, `write` or `dangerous`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Dangerous => "dangerous",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scope {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read" => Ok(Self::Read),
            "write" => Ok(Self::Write),
            "dangerous" => Ok(Self::Dangerous),
            _ => Err(Error::InvalidSetting {
                setting: "scope",
                reason: format!("`{s}` is not one of read, write, dangerous").into(),
            }),
        }
    }
}

/// What a parameter's value is, so the permission engine can judge it without
/// per-tool code: a path it will open, a shell command it will run, a URL or host it
/// will contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ArgKind {
    /// A filesystem path, opened for this kind of access.
    Path(Access),
    /// A shell command line.
    Command,
    /// A URL (its host is what network rules see).
    Url,
    /// A host name or address.
    Host,
    /// Names a resource the call acts on (a process id, a database, a queue): write
    /// calls naming the same one run in call order.
    Resource,
}

/// How a path parameter is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Read it (`file:read`).
    Read,
    /// Create or change it (`file:write`).
    Write,
    /// Delete it (`file:delete`).
    Delete,
}

impl Access {
    /// `read`, `write` or `delete`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Delete => "delete",
        }
    }
}

impl ArgKind {
    /// Read `path:read`, `path:write`, `path:delete`, `command`, `url`, `host` or
    /// `resource`.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "path:read" => Self::Path(Access::Read),
            "path:write" => Self::Path(Access::Write),
            "path:delete" => Self::Path(Access::Delete),
            "command" => Self::Command,
            "url" => Self::Url,
            "host" => Self::Host,
            "resource" => Self::Resource,
            _ => return None,
        })
    }
}

impl fmt::Display for ArgKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Path(access) => write!(f, "path:{}", access.as_str()),
            Self::Command => f.write_str("command"),
            Self::Url => f.write_str("url"),
            Self::Host => f.write_str("host"),
            Self::Resource => f.write_str("resource"),
        }
    }
}

/// Everything the gateway and the model need to know about a tool.
///
/// Built with [`ToolSpec::builder`], which checks the name and the schema root.
///
/// ```
/// use std::time::Duration;
/// use hermes_core::{Scope, ToolSpec};
/// use serde_json::json;
///
/// let spec = ToolSpec::builder("file_write", "Write a text file in the workspace.")
///     .parameters(json!({
///         "type": "object",
///         "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
///         "required": ["path", "content"]
///     }))
///     .scope(Scope::Write)
///     .timeout(Duration::from_secs(5))
///     .permission("file:write")
///     .build()?;
/// assert_eq!(spec.schema()["function"]["name"], "file_write");
/// # Ok::<(), hermes_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    name: String,
    description: String,
    parameters: Value,
    scope: Scope,
    timeout: Duration,
    tags: Vec<String>,
    permissions: Vec<String>,
    max_result_bytes: usize,
    arg_kinds: Vec<(String, ArgKind)>,
    replays: bool,
}

impl ToolSpec {
    /// Start a spec. The parameters default to an object schema with no properties.
    pub fn builder(name: impl Into<String>, description: impl Into<String>) -> ToolSpecBuilder {
        ToolSpecBuilder {
            spec: Self {
                name: name.into(),
                description: description.into(),
                parameters: json!({"type": "object", "properties": {}}),
                scope: Scope::Read,
                timeout: DEFAULT_TIMEOUT,
                tags: Vec::new(),
                permissions: Vec::new(),
                max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
                arg_kinds: Vec::new(),
                replays: true,
            },
        }
    }

    /// A spec from parts already checked (by `#[tool]` at compile time).
    #[allow(
        clippy::too_many_arguments,
        reason = "internal constructor with one caller"
    )]
    pub(crate) fn from_checked_parts(
        name: String,
        description: String,
        parameters: Value,
        scope: Scope,
        timeout: Duration,
        tags: Vec<String>,
        permissions: Vec<String>,
        max_result_bytes: usize,
        arg_kinds: Vec<(String, ArgKind)>,
    ) -> Self {
        Self {
            name,
            description,
            parameters,
            scope,
            timeout,
            tags,
            permissions,
            max_result_bytes,
            arg_kinds,
            replays: true,
        }
    }

    /// The tool's name, unique in a registry.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The JSON Schema of the arguments (an object schema).
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// The tool's scope.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// How long one call may run.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Free-form tags (`weather`, `external-api`).
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// Permissions the tool needs (`file:write`, `network:fetch`).
    pub fn permissions(&self) -> &[String] {
        &self.permissions
    }

    /// Results longer than this many bytes are cut (head and tail kept).
    pub fn max_result_bytes(&self) -> usize {
        self.max_result_bytes
    }

    /// Whether a repeated identical call of this `write` tool gets the first result
    /// instead of running again (true unless [`ToolSpecBuilder::replays`] said no). A call
    /// with an explicit `idempotency_key` argument is always replayed by its key.
    pub fn replays(&self) -> bool {
        self.replays
    }

    /// The parameters whose values the permission engine judges, with what they are.
    pub fn arg_kinds(&self) -> &[(String, ArgKind)] {
        &self.arg_kinds
    }

    /// The OpenAI function object: `{type: "function", function: {name, description, parameters}}`.
    pub fn schema(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            }
        })
    }
}

/// Builds a [`ToolSpec`]; see [`ToolSpec::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ToolSpecBuilder {
    spec: ToolSpec,
}

impl ToolSpecBuilder {
    /// The JSON Schema of the arguments. Its root must be `{"type": "object", ...}`.
    pub fn parameters(mut self, schema: Value) -> Self {
        self.spec.parameters = schema;
        self
    }

    /// Generate the parameters schema from a Rust type with `schemars`.
    pub fn parameters_for<T: JsonSchema>(self) -> Self {
        self.parameters(schema_for::<T>())
    }

    /// The scope (default [`Scope::Read`]).
    pub fn scope(mut self, scope: Scope) -> Self {
        self.spec.scope = scope;
        self
    }

    /// The per-call timeout (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.spec.timeout = timeout;
        self
    }

    /// Add a tag.
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.spec.tags.push(tag.into());
        self
    }

    /// Add tags.
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.spec.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Add a required permission (`domain:action`).
    pub fn permission(mut self, permission: impl Into<String>) -> Self {
        self.spec.permissions.push(permission.into());
        self
    }

    /// Add required permissions.
    pub fn permissions<I, S>(mut self, permissions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.spec
            .permissions
            .extend(permissions.into_iter().map(Into::into));
        self
    }

    /// Declare what parameter `name`'s value is (a path, a command, a URL, a host), so
    /// the permission engine applies the matching restrictions to it. The value may also
    /// be an array of such strings.
    pub fn arg_kind(mut self, name: impl Into<String>, kind: ArgKind) -> Self {
        self.spec.arg_kinds.push((name.into(), kind));
        self
    }

    /// The result size cap in bytes (default 64 KiB).
    pub fn max_result_bytes(mut self, bytes: usize) -> Self {
        self.spec.max_result_bytes = bytes;
        self
    }

    /// Whether a repeated identical call of a `write` tool returns the first result
    /// (default: yes). Say no for tools whose result depends on the world at call time
    /// (a shell command, a test run): the same command twice is two runs. The model can
    /// still make one call retry-safe with an explicit `idempotency_key` argument, if
    /// the schema declares it.
    pub fn replays(mut self, replays: bool) -> Self {
        self.spec.replays = replays;
        self
    }

    /// Check and finish the spec.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidToolName`] for a name outside `^[A-Za-z0-9_-]{1,64}$`;
    /// [`Error::InvalidSchema`] when the parameters are not an object schema;
    /// [`Error::InvalidSetting`] for a zero timeout or a result cap under 64 bytes.
    pub fn build(self) -> Result<ToolSpec, Error> {
        let spec = self.spec;
        check_name(&spec.name)?;
        check_root(&spec.name, &spec.parameters)?;
        check_arg_kinds(&spec)?;
        if spec.timeout.is_zero() {
            return Err(Error::InvalidSetting {
                setting: "timeout",
                reason: "a tool's timeout must be longer than zero".into(),
            });
        }
        if spec.max_result_bytes < 64 {
            return Err(Error::InvalidSetting {
                setting: "max_result_bytes",
                reason: "the result cap must be at least 64 bytes".into(),
            });
        }
        Ok(spec)
    }
}

/// Whether `name` matches `^[A-Za-z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_name(name: &str) -> Result<(), Error> {
    if is_valid_tool_name(name) {
        Ok(())
    } else {
        Err(Error::InvalidToolName {
            name: name.to_owned(),
        })
    }
}

fn check_root(tool: &str, schema: &Value) -> Result<(), Error> {
    let invalid = |reason: &str| Error::InvalidSchema {
        tool: tool.to_owned(),
        reason: reason.to_owned(),
    };
    let Some(root) = schema.as_object() else {
        return Err(invalid("the schema must be a JSON object"));
    };
    match root.get("type") {
        Some(Value::String(kind)) if kind == "object" => {}
        _ => {
            return Err(invalid(
                r#"the root must be an object schema: add "type": "object""#,
            ));
        }
    }
    match root.get("properties") {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err(invalid("`properties` must be an object")),
    }
}

fn check_arg_kinds(spec: &ToolSpec) -> Result<(), Error> {
    let properties = spec.parameters.get("properties").and_then(Value::as_object);
    for (name, kind) in &spec.arg_kinds {
        if !properties.is_some_and(|properties| properties.contains_key(name)) {
            return Err(Error::InvalidSchema {
                tool: spec.name.clone(),
                reason: format!(
                    "`{name}` is declared a {kind} parameter but is not in the schema's properties"
                ),
            });
        }
    }
    Ok(())
}

/// The JSON Schema of `T` as a tool's parameters: draft 2020-12, without the root's
/// `$schema`, `title` and `description` (servers do not want the first two; the tool's
/// own description says what the third would, and the type's rustdoc is not for the model).
pub fn schema_for<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(root) = schema.as_object_mut() {
        root.remove("$schema");
        root.remove("title");
        root.remove("description");
        if !root.contains_key("properties") && root.get("type") == Some(&json!("object")) {
            root.insert("properties".to_owned(), Value::Object(Map::new()));
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_openai_rule() {
        assert!(is_valid_tool_name("web_search"));
        assert!(is_valid_tool_name("a-b_C9"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("has space"));
        assert!(!is_valid_tool_name("dot.name"));
        assert!(!is_valid_tool_name(&"x".repeat(65)));
        assert!(is_valid_tool_name(&"x".repeat(64)));
        let err = ToolSpec::builder("bad name", "").build().unwrap_err();
        assert!(err.to_string().contains("`bad name`"), "{err}");
    }

    #[test]
    fn root_must_be_an_object_schema() {
        let err = ToolSpec::builder("t", "")
            .parameters(json!({"type": "string"}))
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::InvalidSchema { .. }), "{err}");
        let err = ToolSpec::builder("t", "")
            .parameters(json!([1]))
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::InvalidSchema { .. }), "{err}");
    }

    #[test]
    fn zero_timeout_is_rejected() {
        let err = ToolSpec::builder("t", "")
            .timeout(Duration::ZERO)
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("timeout"), "{err}");
    }

    #[test]
    fn schema_from_a_rust_type() {
        #[derive(JsonSchema)]
        #[expect(dead_code, reason = "only the schema is used")]
        struct Args {
            /// The city.
            city: String,
            days: Option<u8>,
        }
        let schema = schema_for::<Args>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["city"]["description"], "The city.");
        assert_eq!(schema["required"], json!(["city"]));
        assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    }

    #[test]
    fn arg_kinds_must_name_parameters() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let spec = ToolSpec::builder("t", "")
            .parameters(schema.clone())
            .arg_kind("path", ArgKind::Path(Access::Write))
            .build()
            .unwrap();
        assert_eq!(spec.arg_kinds()[0].1.to_string(), "path:write");
        let err = ToolSpec::builder("t", "")
            .parameters(schema)
            .arg_kind("file", ArgKind::Command)
            .build()
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("`file` is declared a command parameter"),
            "{err}"
        );
        for kind in [
            "path:read",
            "path:write",
            "path:delete",
            "command",
            "url",
            "host",
            "resource",
        ] {
            assert_eq!(ArgKind::parse(kind).unwrap().to_string(), kind);
        }
    }

    #[test]
    fn scope_parses_and_prints() {
        for scope in [Scope::Read, Scope::Write, Scope::Dangerous] {
            assert_eq!(scope.as_str().parse::<Scope>().unwrap(), scope);
        }
        assert!("admin".parse::<Scope>().is_err());
    }
}
