//! The JSON API: `/api/report` and `/api/series`, their query parameters and errors.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::{Bucket, Report, TelemetryError, TelemetryStore};

/// The period when `hours` is not given.
const DEFAULT_HOURS: f64 = 24.0;
/// The longest period: a leap year.
const MAX_HOURS: f64 = 24.0 * 366.0;
/// Slices when `buckets` is not given.
const DEFAULT_BUCKETS: u32 = 48;
/// The most slices a series is cut into.
const MAX_BUCKETS: u32 = 500;

type Db = State<Arc<PathBuf>>;
type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

/// `GET /api/report?hours=H`.
pub(super) async fn report(State(db): Db, query: Params) -> Response {
    let answer = async {
        let query = params(query, &["hours"])?;
        let period = hours(&query)?;
        with_store(db, move |store| store.report(period)).await
    };
    respond::<Report>(answer.await)
}

/// `GET /api/series?hours=H&buckets=N`.
pub(super) async fn series(State(db): Db, query: Params) -> Response {
    let answer = async {
        let query = params(query, &["hours", "buckets"])?;
        let period = hours(&query)?;
        let buckets = buckets(&query)?;
        with_store(db, move |store| store.series(period, buckets)).await
    };
    respond::<Vec<Bucket>>(answer.await)
}

/// Anything else.
pub(super) async fn not_found() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such page; the dashboard serves /, /api/report?hours=H and \
         /api/series?hours=H&buckets=N"
            .to_owned(),
    )
    .into_response()
}

fn respond<T: Serialize>(answer: Result<T, ApiError>) -> Response {
    match answer {
        Ok(body) => ([(header::CACHE_CONTROL, "no-store")], Json(body)).into_response(),
        Err(error) => error.into_response(),
    }
}

/// The query's parameters, none of them unknown (a misspelt `hour=1` would otherwise
/// silently show the default period).
fn params(query: Params, known: &[&str]) -> Result<HashMap<String, String>, ApiError> {
    let Query(query) = query.map_err(|rejection| ApiError::bad_request(rejection.body_text()))?;
    if let Some(unknown) = query.keys().find(|key| !known.contains(&key.as_str())) {
        return Err(ApiError::bad_request(format!(
            "unknown query parameter `{unknown}`; this endpoint takes {}",
            known.join(" and ")
        )));
    }
    Ok(query)
}

/// The period: `hours`, a number above 0 and at most [`MAX_HOURS`], as whole seconds.
fn hours(query: &HashMap<String, String>) -> Result<Duration, ApiError> {
    let hours = match query.get("hours") {
        None => DEFAULT_HOURS,
        Some(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|hours| hours.is_finite() && *hours > 0.0 && *hours <= MAX_HOURS)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "`hours` must be a number above 0 and at most {MAX_HOURS} (such as 1, \
                     24 or 168), not `{text}`"
                ))
            })?,
    };
    Ok(Duration::from_secs((hours * 3600.0).round().max(1.0) as u64))
}

/// `buckets`, a whole number from 1 to [`MAX_BUCKETS`].
fn buckets(query: &HashMap<String, String>) -> Result<u32, ApiError> {
    match query.get("buckets") {
        None => Ok(DEFAULT_BUCKETS),
        Some(text) => text
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_BUCKETS).contains(n))
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "`buckets` must be a whole number from 1 to {MAX_BUCKETS}, not `{text}`"
                ))
            }),
    }
}

/// Open the store read-only and run `query` on it, on a blocking thread.
async fn with_store<T, F>(db: Arc<PathBuf>, query: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&TelemetryStore) -> Result<T, TelemetryError> + Send + 'static,
{
    let work = tokio::task::spawn_blocking(move || {
        let store = TelemetryStore::open_read_only(db.as_path())
            .map_err(|error| ApiError::unavailable(&db, &error))?;
        query(&store).map_err(|error| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_error",
                format!("reading {} failed: {error}", db.display()),
            )
        })
    });
    match work.await {
        Ok(answer) => answer,
        Err(join) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("the store query stopped: {join}"),
        )),
    }
}

/// An error answer: `{"error": {"kind": .., "message": ..}}` with its status.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, message: String) -> Self {
        Self {
            status,
            kind,
            message,
        }
    }

    fn bad_request(message: String) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// The store at `db` cannot be opened: say which file and what to do.
    fn unavailable(db: &std::path::Path, error: &TelemetryError) -> Self {
        let message = if db.exists() {
            format!(
                "{error}; is {} a hermes telemetry store? Point the dashboard at the file \
                 agents write telemetry to",
                db.display()
            )
        } else {
            format!(
                "no telemetry store at {} yet: run an agent with telemetry on first (it \
                 creates the file), or point the dashboard at the right file",
                db.display()
            )
        };
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "store_unavailable",
            message,
        )
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    kind: &'a str,
    message: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                kind: self.kind,
                message: &self.message,
            },
        };
        (
            self.status,
            [(header::CACHE_CONTROL, "no-store")],
            Json(body),
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn hours_default_to_a_day_and_take_fractions() {
        assert_eq!(hours(&query(&[])).unwrap(), Duration::from_secs(86_400));
        assert_eq!(
            hours(&query(&[("hours", "0.5")])).unwrap(),
            Duration::from_secs(1800)
        );
        assert_eq!(
            hours(&query(&[("hours", "168")])).unwrap(),
            Duration::from_secs(604_800)
        );
    }

    #[test]
    fn hours_out_of_range_or_not_numbers_are_refused() {
        for bad in ["0", "-1", "abc", "NaN", "inf", "9000", ""] {
            let error = hours(&query(&[("hours", bad)])).unwrap_err();
            assert_eq!(error.status, StatusCode::BAD_REQUEST, "{bad}");
            assert!(
                error.message.contains("`hours` must be"),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn buckets_stay_between_1_and_500() {
        assert_eq!(buckets(&query(&[])).unwrap(), 48);
        assert_eq!(buckets(&query(&[("buckets", "500")])).unwrap(), 500);
        for bad in ["0", "501", "2.5", "-3", "many"] {
            let error = buckets(&query(&[("buckets", bad)])).unwrap_err();
            assert!(error.message.contains("from 1 to 500"), "{}", error.message);
        }
    }
}
