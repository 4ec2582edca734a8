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
//!   advice, with the principal variation;
//! * `POST /api/debug` `{"source", "fen", "breakpoints", "actions"}`: breakpoints and stepping
//!   ([`debug`]): the program run from its start through the resumptions given to the stop they
//!   lead to, with the stack, variables and advice there. It takes the three languages (a
//!   `"dialect"` of advice programs, or `cheg`); the other two endpoints take advice programs.
//!
//! Every request and connection is bounded ([`limits::Limits`], `docs/playground.md` lists the
//! values):
//!
//! * only requests whose `Host` is a loopback name with the server's port, and whose `Origin`
//!   (when sent) is the playground itself, are answered ([`guard`]; 403 otherwise);
//! * the body size (413 beyond it) and the time the body may take to arrive (408);
//! * the work: the fuel of a run, the output lines and bytes a run keeps, the errors shown per
//!   file (`cvm_frontend::diag`), the engine's time and depth; and the wall-clock time of the
//!   work (503 with a message when exceeded, and the work is cancelled: a run stops before its
//!   next backend, a search at once);
//! * the slots: at most `concurrent` requests work at once, each kind (runs, moves) on at most
//!   `concurrent - 1` of them, in a first-come first-served queue of bounded length and waiting
//!   time per kind ([`queue`]; 503 when full or after the wait); a slot is freed only when the
//!   work it was given has ended, even when the request was already answered;
//! * the connections ([`conn`]): their number, the time to send a request's head (idle
//!   keep-alive time included) and the time a response may wait for the client to read it.
//!
//! Malformed JSON or FEN gets 400 or 422 with `{"error": "..."}`.

pub mod conn;
pub mod debug;
pub mod guard;
pub mod limits;
pub mod output;
pub mod page;
pub mod queue;
pub mod work;

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use che_engine::search::SearchControl;
use limits::Limits;
use queue::{Kind, Slots};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

/// The server's shared state.
#[derive(Clone)]
struct AppState {
    limits: Limits,
    slots: Slots,
    port: u16,
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

/// Runs `job` on a blocking thread in a slot of `kind`: answers 503 when no slot is free in
/// time, or when the work takes longer than the request time (the job's control is then
/// stopped; the slot stays taken until the job has returned).
async fn bounded<T: Send + 'static>(
    state: &AppState,
    kind: Kind,
    job: impl FnOnce(&SearchControl) -> T + Send + 'static,
) -> Result<T, Response> {
    let limits = state.limits;
    let slot = state
        .slots
        .acquire(kind, limits.queue_time)
        .await
        .map_err(|busy| error(StatusCode::SERVICE_UNAVAILABLE, busy.to_string()))?;
    let control = Arc::new(SearchControl::new());
    let for_job = Arc::clone(&control);
    let mut work = tokio::task::spawn_blocking(move || {
        let result = job(&for_job);
        drop(slot);
        result
    });
    match tokio::time::timeout(limits.request_time, &mut work).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(e)) => Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the work failed: {e}"),
        )),
        Err(_) => {
            control.stop();
            Err(error(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the request took longer than its limit of {:.1} s and was stopped",
                    limits.request_time.as_secs_f64()
                ),
            ))
        }
    }
}

/// What every JSON endpoint does: reads the request, runs `work` on it in a slot of `kind`
/// ([`bounded`]) and answers its result as JSON, its refusal as 422, or the slot's or the
/// clock's refusal.
async fn handle<Req, Ans>(
    state: AppState,
    body: Result<Json<Req>, axum::extract::rejection::JsonRejection>,
    kind: Kind,
    work: fn(&Req, &Limits, &SearchControl) -> Result<Ans, work::RequestError>,
) -> Response
where
    Req: Send + 'static,
    Ans: serde::Serialize + Send + 'static,
{
    let Json(req) = match body {
        Ok(b) => b,
        Err(e) => return error(e.status(), e.body_text()),
    };
    let limits = state.limits;
    match bounded(&state, kind, move |control| work(&req, &limits, control)).await {
        Ok(Ok(answer)) => Json(answer).into_response(),
        Ok(Err(e)) => error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
        Err(response) => response,
    }
}

/// The refusal of a request whose `Host` or `Origin` is not the playground's own ([`guard`]);
/// `None` for a request that may go on.
fn refusal(headers: &axum::http::HeaderMap, port: u16) -> Option<Response> {
    let text = |name: header::HeaderName| {
        headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    };
    if !guard::host_allowed(&text(header::HOST).unwrap_or_default(), port) {
        return Some(error(
            StatusCode::FORBIDDEN,
            format!(
                "this server answers requests for 127.0.0.1:{port}, localhost:{port} or [::1]:{port} only"
            ),
        ));
    }
    match text(header::ORIGIN) {
        Some(origin) if !guard::origin_allowed(&origin, port) => Some(error(
            StatusCode::FORBIDDEN,
            "requests from other origins than the playground itself are refused",
        )),
        _ => None,
    }
}

/// The body, read within the body time and size.
async fn read_body(body: Body, limits: Limits) -> Result<axum::body::Bytes, Response> {
    let read = axum::body::to_bytes(body, limits.body_bytes);
    match tokio::time::timeout(limits.body_time, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request body is larger than {} bytes, or broken",
                limits.body_bytes
            ),
        )),
        Err(_) => Err(error(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {:.1} s",
                limits.body_time.as_secs_f64()
            ),
        )),
    }
}

/// Refuses a request whose `Host` or `Origin` is not the playground's own, and reads its body
/// within the body time and size before the routes see it.
async fn admit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(refused) = refusal(req.headers(), state.port) {
        return refused;
    }
    let (parts, body) = req.into_parts();
    match read_body(body, state.limits).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(refusal) => refusal,
    }
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// The playground's routes with `limits`, for a server listening on `port`.
pub fn router(limits: Limits, port: u16) -> Router {
    let state = AppState {
        limits,
        slots: Slots::new(limits.concurrent, limits.queue_len),
        port,
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
        .route(
            "/api/run",
            post(|State(s): State<AppState>, body| handle(s, body, Kind::Run, work::run_program)),
        )
        .route(
            "/api/move",
            post(|State(s): State<AppState>, body| handle(s, body, Kind::Move, work::engine_move)),
        )
        .route(
            "/api/debug",
            post(|State(s): State<AppState>, body| {
                handle(s, body, Kind::Run, debug::debug_program)
            }),
        )
        .layer(DefaultBodyLimit::max(limits.body_bytes))
        .layer(axum::middleware::from_fn_with_state(state.clone(), admit))
        .with_state(state)
}

/// Serves on an already bound listener until the process ends.
pub async fn serve_on(listener: tokio::net::TcpListener, limits: Limits) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    conn::accept_loop(listener, router(limits, port), limits).await
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
