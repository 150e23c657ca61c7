//! OpenTelemetry export over OTLP (feature `otel`).
//!
//! [`layer`] turns hermes' `tracing` spans into OpenTelemetry spans and sends them,
//! in batches from a thread of their own, to an OTLP/HTTP receiver (an OpenTelemetry
//! Collector, Jaeger, Tempo, a vendor) as protobuf on `POST {endpoint}/v1/traces`. It
//! returns a `tracing_subscriber` [`Layer`] and an [`OtelGuard`]: keep the guard alive
//! as long as the program runs, and drop it (or call [`OtelGuard::shutdown`]) on the
//! way out, so the last batch is sent rather than lost.
//!
//! ```no_run
//! use tracing_subscriber::prelude::*;
//! use hermes_telemetry::otel::{self, OtelConfig};
//!
//! # fn main() -> Result<(), hermes_telemetry::otel::OtelError> {
//! // OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME, else 127.0.0.1:4318 and "hermes".
//! let config = OtelConfig::from_env().with_header("x-api-key", "secret");
//! let (otel_layer, guard) = otel::layer(config)?;
//! tracing_subscriber::registry()
//!     .with(otel_layer)
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .init();
//!
//! // ... build and run agents ...
//!
//! guard.shutdown()?; // or let it drop at the end of `main`
//! # Ok(())
//! # }
//! ```
//!
//! Each layer takes its own filter: `otel_layer.with_filter(LevelFilter::INFO)` keeps
//! debug spans off the wire while the fmt layer still prints them. The layer already
//! leaves out the spans and events of the exporter's own stack (`opentelemetry*`,
//! `reqwest`, `hyper*`, `h2`, `rustls`, `tower`), which would otherwise export
//! themselves in a loop. For a scoped subscriber (a test, one request) use
//! `tracing::subscriber::set_default` instead of `init`.
//!
//! # What is exported
//!
//! Spans are named and keyed after OpenTelemetry's GenAI semantic conventions:
//!
//! | span | parent | attributes |
//! | --- | --- | --- |
//! | `invoke_agent`: one agent run | the caller's span, if any | `gen_ai.operation.name` = `invoke_agent`, `trace_id`, `session_id` |
//! | `round`: one model call and the tool calls it asked for | `invoke_agent` | `trace_id`, `round` (1, 2, ...) |
//! | `chat`: the model call, span kind client | `round` | `gen_ai.operation.name` = `chat`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens` (when the backend reports usage), `error.type` (when the call failed: the error's kind) |
//! | `execute_tool`: one tool call through the gateway | `round` (or the caller's span, for a bare [`Dispatcher`](hermes_core::Dispatcher)) | `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `trace_id` |
//!
//! Counts (`round`, the token counts) are recorded as signed integers, so they arrive
//! as OTLP numbers: `tracing-opentelemetry` would export unsigned ones as text.
//!
//! `tracing` events inside a span (a failed call, a repaired argument, the end of a
//! run) become events of the OpenTelemetry span. `tracing-opentelemetry` also adds
//! the source location (`code.*`) and the thread (`thread.*`).
//!
//! Two trace ids: hermes' own `trace_id` (12 hex digits, the one in
//! [`AgentOutcome`](hermes_core::AgentOutcome), the audit trail and the logs) is an
//! *attribute* of the spans, while OpenTelemetry assigns the spans its own 32-hex
//! trace id (and 16-hex span ids). Every span of one run shares that OTel trace id;
//! search by the `trace_id` attribute to go from a hermes log line to the trace.
//!
//! The resource carries `service.name` (from [`OtelConfig::with_service_name`]), the
//! SDK's `telemetry.sdk.*` attributes and any `OTEL_RESOURCE_ATTRIBUTES`.
//!
//! # Environment
//!
//! [`OtelConfig::from_env`] reads `OTEL_EXPORTER_OTLP_ENDPOINT` (the base URL; the
//! exporter appends `/v1/traces`) and `OTEL_SERVICE_NAME`. The exporter itself also
//! reads `OTEL_EXPORTER_OTLP_HEADERS` / `OTEL_EXPORTER_OTLP_TRACES_HEADERS` (added to
//! the configured headers) and `OTEL_EXPORTER_OTLP_TIMEOUT` (unless
//! [`OtelConfig::with_timeout`] is set).
//!
//! # HTTPS
//!
//! The exporter's HTTP client is reqwest's blocking client, run by the batch thread
//! (which is not a tokio thread, so an async client would have no runtime there). It
//! speaks HTTPS through rustls with the ring provider, which [`layer`] installs as
//! the process default unless the program has installed one already.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::time::Duration;

use opentelemetry::InstrumentationScope;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::registry::LookupSpan;

/// The OTLP/HTTP endpoint used when neither the config nor
/// `OTEL_EXPORTER_OTLP_ENDPOINT` names one: a collector on this machine.
pub const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:4318";
/// The `service.name` used when neither the config nor `OTEL_SERVICE_NAME` names one.
pub const DEFAULT_SERVICE_NAME: &str = "hermes";
/// The path the exporter posts spans to, under the endpoint.
pub const TRACES_PATH: &str = "/v1/traces";

/// Crates whose own spans and events are not exported: the exporter's stack, which
/// would otherwise report on its own exports, forever.
const EXPORTER_TARGETS: &[&str] = &[
    "opentelemetry",
    "opentelemetry_sdk",
    "opentelemetry_otlp",
    "opentelemetry_http",
    "tracing_opentelemetry",
    "reqwest",
    "hyper",
    "hyper_util",
    "h2",
    "rustls",
    "tower",
];

/// Where and as whom to export spans.
///
/// ```
/// use std::time::Duration;
/// use hermes_telemetry::otel::OtelConfig;
///
/// let config = OtelConfig::from_env()
///     .with_endpoint("https://otlp.example.com")
///     .with_service_name("support-bot")
///     .with_header("authorization", "Bearer abc")
///     .with_timeout(Duration::from_secs(5));
/// assert_eq!(config.traces_url(), "https://otlp.example.com/v1/traces");
/// ```
#[derive(Debug, Clone)]
pub struct OtelConfig {
    endpoint: String,
    service_name: String,
    headers: Vec<(String, String)>,
    timeout: Option<Duration>,
}

impl OtelConfig {
    /// The endpoint from `OTEL_EXPORTER_OTLP_ENDPOINT` (else [`DEFAULT_ENDPOINT`]), the
    /// service name from `OTEL_SERVICE_NAME` (else [`DEFAULT_SERVICE_NAME`]), no
    /// headers, the exporter's default timeout. Empty variables count as unset.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
        Self {
            endpoint: var("OTEL_EXPORTER_OTLP_ENDPOINT")
                .unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned()),
            service_name: var("OTEL_SERVICE_NAME")
                .unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_owned()),
            headers: Vec::new(),
            timeout: None,
        }
    }

    /// Send to the OTLP/HTTP receiver at `endpoint`, a base URL such as
    /// `http://collector:4318`; spans go to `{endpoint}/v1/traces`.
    pub fn with_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = endpoint.into();
        self
    }

    /// Name the service in the resource (`service.name`).
    pub fn with_service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = name.into();
        self
    }

    /// Send this header with every export (an API key, a tenant). Checked by
    /// [`layer`].
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Give up on one export after `timeout` (else `OTEL_EXPORTER_OTLP_TIMEOUT`, else
    /// the exporter's 10 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The base URL.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The URL spans are posted to: the endpoint and [`TRACES_PATH`].
    pub fn traces_url(&self) -> String {
        format!("{}{TRACES_PATH}", self.endpoint.trim_end_matches('/'))
    }

    /// The `service.name`.
    pub fn service_name(&self) -> &str {
        &self.service_name
    }

    /// The extra headers, in the order given.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    fn check(&self) -> Result<(), OtelError> {
        let scheme_ok = ["http://", "https://"].iter().any(|scheme| {
            self.endpoint
                .get(..scheme.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
                && self.endpoint.len() > scheme.len()
        });
        if !scheme_ok {
            return Err(OtelError::InvalidEndpoint {
                endpoint: self.endpoint.clone(),
            });
        }
        if let Some((name, _)) = self
            .headers
            .iter()
            .find(|(name, value)| !is_header_name(name) || !is_header_value(value))
        {
            return Err(OtelError::InvalidHeader { name: name.clone() });
        }
        Ok(())
    }
}

impl Default for OtelConfig {
    /// [`OtelConfig::from_env`].
    fn default() -> Self {
        Self::from_env()
    }
}

/// An HTTP token (RFC 9110): letters, digits and ``!#$%&'*+-.^_`|~``.
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Visible ASCII, spaces and tabs: no line breaks to smuggle a header in.
fn is_header_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

fn is_exporter_target(target: &str) -> bool {
    EXPORTER_TARGETS.iter().any(|krate| {
        target
            .strip_prefix(krate)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
    })
}

/// A layer that exports spans over OTLP/HTTP as `config` says, and the guard that
/// flushes them.
///
/// Spans are queued (up to 2,048) and sent in batches of up to 512 by a thread the
/// SDK starts, at least every 5 s; spans that find the queue full are dropped rather
/// than slowing the agent down. Nothing is sent until the first batch: a receiver
/// that is down shows only as internal errors of the exporter, not as a failure here.
///
/// # Errors
///
/// [`OtelError::InvalidEndpoint`] for an endpoint that is not an `http://` or
/// `https://` URL, [`OtelError::InvalidHeader`] for a header that cannot be sent,
/// [`OtelError::Exporter`] if the exporter or its HTTP client cannot be built.
///
/// # Examples
///
/// See [the module](self).
pub fn layer<S>(config: OtelConfig) -> Result<(impl Layer<S> + Send + Sync, OtelGuard), OtelError>
where
    S: Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
{
    config.check()?;
    // Only if the program has not chosen a provider itself.
    let _ = rustls::crypto::ring::default_provider().install_default();

    let headers: HashMap<String, String> = config.headers.iter().cloned().collect();
    let mut exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(config.traces_url())
        .with_headers(headers);
    if let Some(timeout) = config.timeout {
        exporter = exporter.with_timeout(timeout);
    }
    let exporter = exporter.build().map_err(|source| OtelError::Exporter {
        endpoint: config.endpoint.clone(),
        source: Box::new(source),
    })?;

    let resource = Resource::builder()
        .with_service_name(config.service_name)
        .build();
    let provider = SdkTracerProvider::builder()
        .with_resource(resource)
        .with_batch_exporter(exporter)
        .build();
    let scope = InstrumentationScope::builder(env!("CARGO_PKG_NAME"))
        .with_version(env!("CARGO_PKG_VERSION"))
        .build();
    let tracer = provider.tracer_with_scope(scope);
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_filter(filter_fn(|metadata| !is_exporter_target(metadata.target())));
    Ok((
        layer,
        OtelGuard {
            provider: Some(provider),
        },
    ))
}

/// Flushes and shuts the exporter down when dropped, or on [`shutdown`](Self::shutdown).
///
/// Drop it after the last span closes (at the end of `main`, after the runtime has
/// stopped): spans still open then are never sent. Both wait for the last export, up
/// to 5 s, blocking the thread: from async code prefer `spawn_blocking` or call them
/// outside the runtime.
#[derive(Debug)]
#[must_use = "dropping the guard at once shuts the exporter down"]
pub struct OtelGuard {
    provider: Option<SdkTracerProvider>,
}

impl OtelGuard {
    /// Send what is queued now, and wait for it.
    ///
    /// # Errors
    ///
    /// [`OtelError::Flush`] if an export failed or timed out.
    pub fn flush(&self) -> Result<(), OtelError> {
        match &self.provider {
            Some(provider) => provider.force_flush().map_err(|source| OtelError::Flush {
                source: Box::new(source),
            }),
            None => Ok(()),
        }
    }

    /// Send what is queued, then stop the exporter; later spans are dropped.
    ///
    /// # Errors
    ///
    /// [`OtelError::Flush`] if the last export failed or timed out.
    pub fn shutdown(mut self) -> Result<(), OtelError> {
        match self.provider.take() {
            Some(provider) => provider.shutdown().map_err(|source| OtelError::Flush {
                source: Box::new(source),
            }),
            None => Ok(()),
        }
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take()
            && let Err(error) = provider.shutdown()
        {
            tracing::warn!(%error, "could not send the last spans over OTLP");
        }
    }
}

/// What can go wrong setting up or flushing the OTLP export.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// The endpoint is not an `http://` or `https://` URL.
    #[error(
        "the OTLP endpoint `{endpoint}` is not an http:// or https:// URL; give the receiver's base URL, such as http://127.0.0.1:4318"
    )]
    InvalidEndpoint {
        /// The endpoint given.
        endpoint: String,
    },
    /// A header has an empty or invalid name, or a value with control characters.
    #[error(
        "the OTLP header `{name}` has an invalid name or value (control characters, line breaks)"
    )]
    InvalidHeader {
        /// The header's name.
        name: String,
    },
    /// The exporter or its HTTP client could not be built.
    #[error("cannot build the OTLP exporter for {endpoint}")]
    Exporter {
        /// The endpoint.
        endpoint: String,
        /// Why.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
    /// Flushing or shutting down failed: the last spans may be lost.
    #[error("cannot flush the OTLP exporter")]
    Flush {
        /// Why.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traces_url_joins_the_endpoint_and_the_path() {
        let config = OtelConfig::from_env().with_endpoint("http://collector:4318/");
        assert_eq!(config.traces_url(), "http://collector:4318/v1/traces");
    }

    #[test]
    fn endpoints_without_an_http_scheme_are_refused() {
        for endpoint in ["collector:4318", "grpc://collector:4317", "http://", ""] {
            let config = OtelConfig::from_env().with_endpoint(endpoint);
            assert!(
                matches!(config.check(), Err(OtelError::InvalidEndpoint { .. })),
                "{endpoint}"
            );
        }
        assert!(
            OtelConfig::from_env()
                .with_endpoint("HTTPS://collector")
                .check()
                .is_ok()
        );
    }

    #[test]
    fn headers_with_line_breaks_or_bad_names_are_refused() {
        let bad = [("x-key", "a\r\nx-evil: 1"), ("bad name", "v"), ("", "v")];
        for (name, value) in bad {
            let config = OtelConfig::from_env()
                .with_endpoint(DEFAULT_ENDPOINT)
                .with_header(name, value);
            assert!(
                matches!(config.check(), Err(OtelError::InvalidHeader { .. })),
                "{name}"
            );
        }
    }

    #[test]
    fn the_exporters_own_crates_are_left_out() {
        assert!(is_exporter_target("hyper_util::client::legacy"));
        assert!(is_exporter_target("h2"));
        assert!(is_exporter_target("opentelemetry_sdk"));
        assert!(!is_exporter_target("hermes_core::agent::run"));
        assert!(!is_exporter_target("h2o"));
    }
}
