//! The connections: accepted up to a bound, each served by HTTP/1.1 with timeouts, so that idle,
//! slow or stuck clients cannot hold the server.
//!
//! - A request's head must arrive within [`Limits::idle_time`] of the moment the connection
//!   waits for it (this also ends a keep-alive connection left idle), however slowly its bytes
//!   trickle in.
//! - A response that the client does not read for [`Limits::idle_time`] ends the connection.
//! - At most [`Limits::connections`] are open; further ones wait in the listener's backlog.
//!
//! A request's body has [`Limits::body_time`] to arrive (checked in the router, see
//! `super::router`).

use super::limits::Limits;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

/// A stream whose writes fail once they have made no progress for a while (a client that
/// stopped reading).
pub struct WriteTimeout<T> {
    inner: T,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteTimeout<T> {
    /// Wraps `inner`; a write that stays pending for `limit` fails with `TimedOut`.
    pub fn new(inner: T, limit: Duration) -> WriteTimeout<T> {
        WriteTimeout {
            inner,
            limit,
            stalled: None,
        }
    }

    /// Checks the stall timer after the inner write returned pending.
    fn pending<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let limit = self.limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(Instant::now() + limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => self.pending(cx),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => self.pending(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_shutdown(cx) {
            Poll::Ready(r) => Poll::Ready(r),
            Poll::Pending => self.pending(cx),
        }
    }
}

/// Accepts connections on `listener` and serves `app` on each, within `limits`, until the
/// process ends.
pub async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    limits: Limits,
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.connections.max(1)));
    loop {
        let Ok(permit) = Arc::clone(&open).acquire_owned().await else {
            return Ok(());
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors and the like: wait a little, then go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let io = TokioIo::new(WriteTimeout::new(stream, limits.idle_time));
        let service = TowerToHyperService::new(app.clone());
        let idle = limits.idle_time;
        tokio::spawn(async move {
            let _permit = permit;
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(idle)
                .serve_connection(io, service)
                .await;
        });
    }
}
