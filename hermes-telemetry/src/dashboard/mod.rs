//! The local dashboard (feature `dashboard`): one web page with charts of a
//! [`TelemetryStore`](crate::TelemetryStore), served by axum. `hermes dashboard` binds
//! a port on 127.0.0.1 and hands the listener to [`serve`].
//!
//! Routes:
//!
//! - `GET /`: the page, self-contained (HTML, vanilla JS, inline SVG; nothing is
//!   fetched from elsewhere). It charts calls and error rate over time, latency per
//!   tool (mean, p50, p95), the top tools, tokens over time and by tool, and errors by
//!   kind, with a period selector (1h, 24h, 7d), and fetches fresh figures every 5 s.
//! - `GET /api/report?hours=H`: the [`Report`](crate::Report) of the last `H` hours
//!   (default 24, at most 8784, fractions allowed), as JSON.
//! - `GET /api/series?hours=H&buckets=N`: the last `H` hours in `N` equal
//!   [`Bucket`](crate::Bucket)s (default 48, from 1 to 500), oldest first, as JSON.
//!
//! Each API request opens the store read-only on a blocking thread, so an agent may
//! keep writing to it, and a store created after the dashboard started is picked up.
//! Errors are JSON, `{"error": {"kind": .., "message": ..}}`: `bad_request` (400) for
//! a bad query parameter, `store_unavailable` (503) when the file is missing or not a
//! store, `store_error` (500) when a query fails.
//!
//! ```no_run
//! use std::path::PathBuf;
//!
//! # #[tokio::main]
//! # async fn main() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:7777").await?;
//! hermes_telemetry::dashboard::serve(listener, PathBuf::from("telemetry.db")).await
//! # }
//! ```

mod api;

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;

/// The page: HTML, CSS and JS in one file, no external resources.
const PAGE: &str = include_str!("page.html");

/// The dashboard's routes over the store at `db` (see the [module docs](self)).
///
/// The file need not exist yet: until it does, the API answers 503 and the page says
/// so.
pub fn router(db: PathBuf) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/report", get(api::report))
        .route("/api/series", get(api::series))
        .fallback(api::not_found)
        .with_state(Arc::new(db))
}

/// Serve the dashboard over the store at `db` on `listener` until the process ends.
///
/// # Errors
///
/// An I/O error from the listener.
pub async fn serve(listener: tokio::net::TcpListener, db: PathBuf) -> std::io::Result<()> {
    axum::serve(listener, router(db)).await
}

async fn page() -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-store")], Html(PAGE))
}
