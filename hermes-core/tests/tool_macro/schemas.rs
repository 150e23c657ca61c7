//! The generated schemas, pinned.

use hermes_core::{Registry, Scope, Tool};

use super::tools::{CountBlockingTool, GetWeatherTool, HttpRequestTool, WhoamiTool};

#[test]
fn weather_query_schema() {
    insta::assert_json_snapshot!(GetWeatherTool.spec().schema());
}

#[test]
fn http_request_schema() {
    insta::assert_json_snapshot!(HttpRequestTool.spec().schema());
}

#[test]
fn context_is_not_part_of_the_schema() {
    let schema = WhoamiTool.spec().parameters().clone();
    assert_eq!(schema["properties"].as_object().unwrap().len(), 1);
    assert_eq!(
        schema["properties"]["greeting"]["description"],
        "A greeting to echo."
    );
    assert!(
        schema
            .get("required")
            .is_none_or(|r| r.as_array().unwrap().is_empty())
    );
    let count = CountBlockingTool.spec().parameters().clone();
    assert_eq!(count["required"], serde_json::json!(["n"]));
}

#[test]
fn attribute_options_reach_the_spec() {
    let spec = GetWeatherTool.spec();
    assert_eq!(spec.name(), "weather_query");
    assert_eq!(
        spec.description(),
        "Query the current weather and the forecast for a city."
    );
    assert_eq!(spec.scope(), Scope::Read);
    assert_eq!(spec.timeout(), std::time::Duration::from_secs(15));
    assert_eq!(spec.tags(), ["weather", "external-api"]);
    assert_eq!(spec.permissions(), ["network:fetch"]);
    let http = HttpRequestTool.spec();
    assert_eq!((http.name(), http.scope()), ("http_request", Scope::Write));
    assert_eq!(http.timeout(), std::time::Duration::from_secs(300));
    // The schema is built once: the same value every time.
    assert!(std::ptr::eq(GetWeatherTool.spec(), GetWeatherTool.spec()));
}

#[test]
fn parameter_kinds_reach_the_spec() {
    use hermes_core::{Access, ArgKind};
    let spec = super::tools::SaveNoteTool.spec();
    assert_eq!(
        spec.arg_kinds(),
        [
            ("path".to_owned(), ArgKind::Path(Access::Write)),
            ("hook".to_owned(), ArgKind::Command),
            ("mirror".to_owned(), ArgKind::Url),
        ]
    );
    assert_eq!(
        spec.parameters()["properties"]["path"]["description"],
        "Where the note goes."
    );
}

#[test]
fn every_linked_tool_is_found() {
    let registry = Registry::from_linked().unwrap();
    assert_eq!(
        registry.names(),
        [
            "count_blocking",
            "explode",
            "forget-all",
            "http_request",
            "refuse",
            "save_note",
            "weather_query",
            "whoami"
        ]
    );
}
