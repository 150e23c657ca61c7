//! The `#[tool]` functions under test.

use std::collections::BTreeMap;
use std::sync::Mutex;

use hermes_core::{ToolContext, ToolError, ToolOutput, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Serialize)]
pub struct Forecast {
    pub city: String,
    pub days: u8,
    pub unit: Unit,
}

#[derive(Debug, thiserror::Error)]
pub enum WeatherError {
    #[error("no weather station near `{0}`; try a larger city nearby")]
    UnknownCity(String),
}

/// The cities the body ran for: validation must stop bad calls before it.
pub static WEATHER_CITIES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Query the current weather and the forecast for a city.
///
/// Longer text that is not part of the description.
///
/// # Arguments
/// * `city` - City name, in any language.
/// * `days` - Forecast days, 1 to 7.
#[tool(name = "weather_query", tags = ["weather", "external-api"], timeout = "15s", scope = "read", permissions = ["network:fetch"])]
pub async fn get_weather(
    city: String,
    #[arg(default = 3, minimum = 1, maximum = 7)] days: u8,
    unit: Unit,
) -> Result<Forecast, WeatherError> {
    WEATHER_CITIES.lock().unwrap().push(city.clone());
    if city == "Atlantis" {
        return Err(WeatherError::UnknownCity(city));
    }
    Ok(Forecast { city, days, unit })
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
    Head,
}

/// A request body: text or a JSON object.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Body {
    Text(String),
    Json(serde_json::Map<String, Value>),
}

/// Send an HTTP request and return the status, headers and body.
///
/// # Arguments
/// * `url` - The absolute URL to request.
/// * `method` - The HTTP method.
/// * `headers` - Request headers, name to value.
/// * `body` - The request body: a string, a JSON object, or null for none.
/// * `timeout_seconds` - How long to wait for the response.
/// * `follow_redirects` - Whether to follow 3xx redirects.
#[tool(scope = "write", permissions = ["network:fetch"], timeout = "5m")]
pub fn http_request(
    #[arg(format = "uri")] url: String,
    #[arg(default = "GET")] method: Method,
    headers: Option<BTreeMap<String, String>>,
    body: Option<Body>,
    #[arg(default = 30, minimum = 1, maximum = 300)] timeout_seconds: u32,
    #[arg(default = true)] follow_redirects: bool,
) -> Result<Value, ToolError> {
    // Not a real client: the test only needs the arguments as the tool received them.
    Ok(json!({
        "url": url,
        "method": format!("{method:?}"),
        "headers": headers.unwrap_or_default(),
        "has_body": body.is_some(),
        "timeout_seconds": timeout_seconds,
        "follow_redirects": follow_redirects,
    }))
}

/// Say who is calling: the call id and the session, from the injected context.
#[tool]
pub fn whoami(
    ctx: &ToolContext,
    #[arg(desc = "A greeting to echo.")] greeting: Option<String>,
) -> Value {
    json!({
        "tool_call_id": ctx.tool_call_id(),
        "session": ctx.session_id(),
        "greeting": greeting,
    })
}

/// Count to n on the blocking pool, taking the context by value.
#[tool(blocking)]
pub fn count_blocking(ctx: ToolContext, #[arg(minimum = 0, maximum = 1000)] n: u32) -> ToolOutput {
    let _ = ctx.trace_id();
    ToolOutput::text((1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(","))
}

/// Forget everything (a side effect with nothing to return).
#[tool(scope = "dangerous", name = "forget-all")]
pub fn forget_all() {}

/// Refuse with a specific error kind.
#[tool]
pub async fn refuse(reason: String) -> Result<(), ToolError> {
    Err(ToolError::Denied {
        tool: "refuse".into(),
        reason,
    })
}

/// Append a line to a note and run a hook command afterwards.
#[tool(scope = "write")]
pub fn save_note(
    #[arg(path = "write", desc = "Where the note goes.")] path: String,
    text: String,
    #[arg(command)] hook: Option<String>,
    #[arg(url)] mirror: Option<String>,
) -> String {
    format!("{path}: {text} {hook:?} {mirror:?}")
}

/// Panic inside the body.
#[tool]
pub fn explode(#[arg(desc = "What to say when exploding.", min_length = 1)] message: String) -> u8 {
    panic!("{message}")
}
