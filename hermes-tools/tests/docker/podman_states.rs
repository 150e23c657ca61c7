//! Podman's Docker-compatible API reports container states Docker's does not have
//! (`stopped`); the container list must still come back. An engine on a unix socket
//! that answers as podman does when a container sits in that state.

use axum::Router;
use axum::routing::get;
use serde_json::json;

use crate::engine::bench_at;

#[tokio::test]
async fn a_container_in_a_podman_only_state_is_still_listed() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("engine.sock");
    let listener = tokio::net::UnixListener::bind(&socket).unwrap();
    let containers = || async {
        axum::Json(json!([{
            "Id": "0123456789ab",
            "Names": ["/stuck"],
            "Image": "localhost/hermes-busybox:2",
            "State": "stopped",
            "Status": "Stopped",
            "Created": 1_700_000_000
        }]))
    };
    let app = Router::new()
        .route("/_ping", get(|| async { "OK" }))
        .route(
            "/version",
            get(|| async {
                axum::Json(
                    json!({"ApiVersion": "1.41", "MinAPIVersion": "1.24", "Version": "4.3.1"}),
                )
            }),
        )
        .route("/containers/json", get(containers))
        .route("/{version}/containers/json", get(containers));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let bench = bench_at(&format!("unix://{}", socket.display()));
    let listed = bench
        .ok(
            "docker_inspect",
            json!({"action": "containers", "all": true}),
        )
        .await;
    assert_eq!(listed["count"], 1, "{listed}");
    assert_eq!(listed["items"][0]["State"], "stopped", "{listed}");
    assert_eq!(listed["items"][0]["Names"], json!(["/stuck"]), "{listed}");
}
