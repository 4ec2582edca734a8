//! `che serve [--port P]`: a local web playground on 127.0.0.1.
//!
//! One page ([`page`]: HTML, CSS and a small script, no framework, nothing fetched from the
//! network) with a source editor, a board set by FEN or by dragging pieces, and buttons that call
//! two JSON endpoints ([`work`] does the work):
//!
//! * `POST /api/run` `{"source", "fen", "backend": "interp"|"jit"|"auto"|"all"}`: compiles the program
//!   (diagnostics with line and column), runs `main()` on each backend and answers the output,
//!   the advice (JSON and SVG picture), the CVM listing and the timings per backend;
//! * `POST /api/move` `{"source", "fen", "depth"}`: the engine's move with the program as its
//!   advice, with the principal variation.
//!
//! Every request is bounded ([`limits::Limits`]): the body size (413 beyond it), the fuel of a
//! run, the engine's time and depth, and the wall-clock time of the request (503 with a message
//! when exceeded; the work itself is bounded by fuel and search time, so it ends soon after).
//! Malformed JSON or FEN gets 400 or 422 with `{"error": "..."}`. The work runs on blocking
//! threads, at most `concurrent` at a time, so the server keeps answering.

pub mod limits;
pub mod page;
pub mod work;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use limits::Limits;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// The server's shared state.
#[derive(Clone)]
struct AppState {
    limits: Limits,
    permits: Arc<Semaphore>,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The runtime or the socket could not be set up.
    #[error("cannot start the server: {0}")]
    Io(#[from] std::io::Error),
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

/// Runs `job` on a blocking thread within the request's time limit.
async fn bounded<T: Send + 'static>(
    state: &AppState,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Response> {
    let limit = state.limits.request_time;
    let work = async {
        let _permit = state.permits.acquire().await.map_err(|_| {
            error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            )
        })?;
        tokio::task::spawn_blocking(job).await.map_err(|e| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the work failed: {e}"),
            )
        })
    };
    match tokio::time::timeout(limit, work).await {
        Ok(result) => result,
        Err(_) => Err(error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the request took longer than its limit of {:.1} s",
                limit.as_secs_f64()
            ),
        )),
    }
}

async fn run_handler(
    State(state): State<AppState>,
    body: Result<Json<work::RunRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(req) = match body {
        Ok(b) => b,
        Err(e) => return error(e.status(), e.body_text()),
    };
    let limits = state.limits;
    match bounded(&state, move || work::run_program(&req, &limits)).await {
        Ok(Ok(answer)) => Json(answer).into_response(),
        Ok(Err(e)) => error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
        Err(response) => response,
    }
}

async fn move_handler(
    State(state): State<AppState>,
    body: Result<Json<work::MoveRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(req) = match body {
        Ok(b) => b,
        Err(e) => return error(e.status(), e.body_text()),
    };
    let limits = state.limits;
    match bounded(&state, move || work::engine_move(&req, &limits)).await {
        Ok(Ok(answer)) => Json(answer).into_response(),
        Ok(Err(e)) => error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
        Err(response) => response,
    }
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// The playground's routes with `limits`.
pub fn router(limits: Limits) -> Router {
    let state = AppState {
        limits,
        permits: Arc::new(Semaphore::new(limits.concurrent.max(1))),
    };
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", page::INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", page::APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", page::STYLE_CSS) }),
        )
        .route(
            "/example.che",
            get(|| async { asset("text/plain; charset=utf-8", page::EXAMPLE) }),
        )
        .route("/api/run", post(run_handler))
        .route("/api/move", post(move_handler))
        .layer(DefaultBodyLimit::max(limits.body_bytes))
        .with_state(state)
}

/// Serves on an already bound listener until the process ends.
pub async fn serve_on(listener: tokio::net::TcpListener, limits: Limits) -> std::io::Result<()> {
    axum::serve(listener, router(limits)).await
}

/// `che serve`: binds 127.0.0.1:`port` (0 picks a free port), prints the address and serves.
pub fn run(port: u16, limits: Limits, announce: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(limits.concurrent.max(1) + 2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
        announce(listener.local_addr()?);
        serve_on(listener, limits).await?;
        Ok(())
    })
}
