//! From the file as written to checked tool definitions: every rule of the format, every
//! problem reported with its line and column, nothing half loaded.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::auth::Auth;
use super::endpoint::Endpoint;
use super::error::Problem;
use super::raw::{Method, ParamType, RawFile, RawParameter, RawTool, at};
use super::response::Mapping;
use super::template::{BodyTemplate, locate};
use serde_saphyr::Spanned;

/// A call's timeout when the file gives none.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest timeout a file may give.
const MAX_TIMEOUT_SECONDS: f64 = 300.0;

/// One checked tool of a file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Definition {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) endpoint: Endpoint,
    pub(crate) method: Method,
    pub(crate) auth: Auth,
    pub(crate) parameters: Vec<Parameter>,
    pub(crate) template: Option<BodyTemplate>,
    pub(crate) mapping: Option<Mapping>,
    pub(crate) tags: Vec<String>,
    pub(crate) timeout: Duration,
}

/// One parameter of a tool.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parameter {
    pub(crate) name: String,
    pub(crate) kind: ParamType,
    pub(crate) required: bool,
    pub(crate) allowed: Option<Vec<Value>>,
    pub(crate) default: Option<Value>,
    pub(crate) description: Option<String>,
}

impl Definition {
    /// The parameters as a JSON Schema object (the gateway validates calls against it).
    pub(crate) fn schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for parameter in &self.parameters {
            let mut property = Map::new();
            property.insert("type".into(), json!(parameter.kind.as_str()));
            if let Some(description) = &parameter.description {
                property.insert("description".into(), json!(description));
            }
            if let Some(allowed) = &parameter.allowed {
                property.insert("enum".into(), Value::Array(allowed.clone()));
            }
            if let Some(default) = &parameter.default {
                property.insert("default".into(), default.clone());
            }
            properties.insert(parameter.name.clone(), Value::Object(property));
            if parameter.required {
                required.push(json!(parameter.name));
            }
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }

    /// The parameters neither the endpoint nor the template uses: they go in the query
    /// string (GET, HEAD, DELETE) or make up the JSON body (other methods).
    pub(crate) fn unplaced(&self) -> impl Iterator<Item = &str> {
        let placed = self.placed();
        self.parameters
            .iter()
            .map(|parameter| parameter.name.as_str())
            .filter(move |name| !placed.contains(name))
    }

    fn placed(&self) -> BTreeSet<&str> {
        let mut placed = self.endpoint.params();
        if let Some(template) = &self.template {
            placed.extend(template.params());
        }
        placed
    }
}

/// Check every tool of `raw`; all of them, or every problem found.
/// `text` is the file's text, for positions inside templates.
pub(crate) fn check(raw: &RawFile, text: &str) -> Result<Vec<Definition>, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut definitions = Vec::new();
    let mut seen: HashMap<&str, u64> = HashMap::new();
    for tool in &raw.tools {
        let name = tool.value.name.value.as_str();
        let line = tool.value.name.referenced.line();
        if let Some(first) = seen.insert(name, line) {
            problems.push(Problem::new(
                at(&tool.value.name),
                Some(name),
                format!("duplicate tool name: `{name}` is already defined on line {first}"),
            ));
            continue;
        }
        match check_tool(&tool.value, text) {
            Ok(definition) => definitions.push(definition),
            Err(mut found) => problems.append(&mut found),
        }
    }
    if problems.is_empty() {
        Ok(definitions)
    } else {
        Err(problems)
    }
}

fn check_tool(raw: &RawTool, text: &str) -> Result<Definition, Vec<Problem>> {
    let name = raw.name.value.trim();
    let mut problems = Vec::new();
    let mut problem = |where_: (u64, u64), message: String| {
        problems.push(Problem::new(where_, Some(name), message));
    };
    if !is_tool_name(name) {
        problem(
            at(&raw.name),
            "a tool name is 1 to 64 letters, digits, `_` or `-`".to_owned(),
        );
    }
    if raw.description.value.trim().is_empty() {
        problem(
            at(&raw.description),
            "the description is empty: say what the tool does and what it returns".to_owned(),
        );
    }
    let endpoint = Endpoint::compile(&raw.endpoint.value)
        .map_err(|message| problem(at(&raw.endpoint), message))
        .ok();
    let method = raw
        .method
        .as_ref()
        .map_or(Method::Get, |method| method.value);
    let auth = match &raw.auth {
        None => Some(Auth::None),
        Some(auth) => Auth::from_raw(&auth.value)
            .map_err(|message| problem(at(auth), message))
            .ok(),
    };
    let mut parameters = Vec::new();
    let mut names = BTreeSet::new();
    for parameter in &raw.parameters {
        match check_parameter(&parameter.value) {
            Ok(checked) if !names.insert(checked.name.clone()) => problem(
                at(&parameter.value.name),
                format!("parameter `{}` is declared twice", checked.name),
            ),
            Ok(checked) => parameters.push(checked),
            Err(message) => problem(at(&parameter.value.name), message),
        }
    }
    let template = raw.request_template.as_ref().and_then(|template| {
        if method.is_read() {
            problem(
                at(template),
                format!(
                    "request_template: a {} request has no body; use POST, PUT, PATCH or DELETE, or put the parameters in the endpoint's query",
                    method.as_str()
                ),
            );
            return None;
        }
        BodyTemplate::compile(&template.value)
            .map_err(|error| problem(inside(template, error.at, text), error.message))
            .ok()
    });
    let mapping = raw.response_mapping.as_ref().and_then(|mapping| {
        Mapping::from_raw(&mapping.value)
            .map_err(|message| problem(at(mapping), message))
            .ok()
    });
    let timeout = match &raw.timeout_seconds {
        None => Some(DEFAULT_TIMEOUT),
        Some(seconds) if seconds.value > 0.0 && seconds.value <= MAX_TIMEOUT_SECONDS => {
            Some(Duration::from_secs_f64(seconds.value))
        }
        Some(seconds) => {
            problem(
                at(seconds),
                format!(
                    "timeout_seconds must be more than 0 and at most {MAX_TIMEOUT_SECONDS}, not {}",
                    seconds.value
                ),
            );
            None
        }
    };
    // Placeholders must name parameters; path parameters always need a value.
    let declared = |name: &str| names.contains(name);
    if let Some(endpoint) = &endpoint {
        for unknown in endpoint.params().into_iter().filter(|name| !declared(name)) {
            problem(
                at(&raw.endpoint),
                format!(
                    "endpoint: unknown placeholder `{{{{{unknown}}}}}`; {}",
                    known(&names)
                ),
            );
        }
        for name in endpoint.path_params() {
            let optional = parameters
                .iter()
                .any(|p| p.name == name && !p.required && p.default.is_none());
            if optional {
                problem(
                    at(&raw.endpoint),
                    format!(
                        "endpoint: path parameter `{name}` must be required or have a default (a path cannot leave it out)"
                    ),
                );
            }
        }
    }
    if let (Some(template), Some(raw_template)) = (&template, &raw.request_template) {
        for unknown in template.params().into_iter().filter(|name| !declared(name)) {
            let spot = match &raw_template.value {
                Value::String(text) => locate(text, unknown),
                _ => None,
            };
            problem(
                inside(raw_template, spot, text),
                format!(
                    "request_template: unknown placeholder `{{{{{unknown}}}}}`; {}",
                    known(&names)
                ),
            );
        }
    }
    let (Some(endpoint), Some(auth), Some(timeout)) = (endpoint, auth, timeout) else {
        return Err(problems);
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    let definition = Definition {
        name: name.to_owned(),
        description: raw.description.value.trim().to_owned(),
        endpoint,
        method,
        auth,
        parameters,
        template,
        mapping,
        tags: raw.tags.clone(),
        timeout,
    };
    if definition.template.is_some() {
        let unused: Vec<&str> = definition.unplaced().collect();
        if !unused.is_empty() {
            return Err(vec![Problem::new(
                at(&raw.name),
                Some(name),
                format!(
                    "parameter{} {} used by neither the endpoint nor request_template: use {} or remove {}",
                    if unused.len() == 1 { "" } else { "s" },
                    unused
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if unused.len() == 1 { "it" } else { "them" },
                    if unused.len() == 1 { "it" } else { "them" },
                ),
            )]);
        }
    }
    Ok(definition)
}

fn check_parameter(raw: &RawParameter) -> Result<Parameter, String> {
    let name = raw.name.value.trim().to_owned();
    if !super::placeholder::is_name(&name) {
        return Err(format!(
            "parameter name `{name}` must be letters, digits and `_`, not starting with a digit"
        ));
    }
    let kind = raw.kind.unwrap_or(ParamType::String);
    if let Some(allowed) = &raw.allowed {
        if allowed.is_empty() {
            return Err(format!("parameter `{name}`: `enum` is empty"));
        }
        if let Some(bad) = allowed.iter().find(|value| !kind.accepts(value)) {
            return Err(format!(
                "parameter `{name}`: enum value {bad} is not of type {}",
                kind.as_str()
            ));
        }
    }
    if let Some(default) = &raw.default {
        if !kind.accepts(default) {
            return Err(format!(
                "parameter `{name}`: default {default} is not of type {}",
                kind.as_str()
            ));
        }
        if raw
            .allowed
            .as_ref()
            .is_some_and(|allowed| !allowed.contains(default))
        {
            return Err(format!(
                "parameter `{name}`: default {default} is not one of its enum values"
            ));
        }
    }
    Ok(Parameter {
        name,
        kind,
        required: raw.required,
        allowed: raw.allowed.clone(),
        default: raw.default.clone(),
        description: raw.description.clone(),
    })
}

/// The file position of `spot` (1-based line and column within a template's text),
/// given where the text starts; the text's start when there is no spot. A block scalar's
/// lines share its indentation, so columns carry over; a quoted scalar starts after its
/// quote.
fn inside(template: &Spanned<Value>, spot: Option<(usize, usize)>, text: &str) -> (u64, u64) {
    let (line, mut column) = at(template);
    let opening = text
        .lines()
        .nth((line as usize).saturating_sub(1))
        .and_then(|row| row.chars().nth((column as usize).saturating_sub(1)));
    if matches!(opening, Some('\'' | '"')) {
        column += 1;
    }
    match spot {
        Some((spot_line, spot_column)) => {
            (line + spot_line as u64 - 1, column + spot_column as u64 - 1)
        }
        None => (line, column),
    }
}

/// OpenAI's rule for function names.
fn is_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn known(names: &BTreeSet<String>) -> String {
    if names.is_empty() {
        "the tool declares no parameters".to_owned()
    } else {
        let listed: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
        format!("the parameters are {}", listed.join(", "))
    }
}
