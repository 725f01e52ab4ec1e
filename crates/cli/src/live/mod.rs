//! The live page (`tidemark run --ui 127.0.0.1:8081 job.sql`): the run
//! report's page served while the job runs, refreshing itself, and
//! `GET /metrics` in Prometheus's text format ([`metrics`]).
//!
//! The query thread never waits on a client: it publishes a snapshot of
//! its records every so often into a slot behind a mutex held only to
//! swap it, and the server renders from the snapshot on its own thread.
//! HTTP is hyper's, on a one-thread tokio runtime; each connection gets
//! [`CLIENT_TIMEOUT`] in all, so a client that stops reading (or never
//! sends its request) is dropped, and at most [`MAX_CLIENTS`] are served
//! at once. Only `/` and `/metrics` exist; other paths are 404.

pub mod metrics;

use crate::report::{page, QueryReport};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The address given as an example of one: this machine only.
pub const EXAMPLE_ADDRESS: &str = "127.0.0.1:8081";

/// How long one connection may take, request to last byte.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections served at once; more are closed at once.
pub const MAX_CLIENTS: usize = 32;

/// How often the page asks for itself again, in seconds.
const REFRESH_SECONDS: u32 = 2;

/// What the page and the metrics are drawn from.
#[derive(Default)]
struct Published {
    /// Queries that have finished, and the one running.
    finished: Vec<Arc<QueryReport>>,
    running: Option<Arc<QueryReport>>,
}

/// The live page's server, running until the process ends.
pub struct LiveServer {
    pub address: SocketAddr,
    published: Arc<Mutex<Published>>,
}

fn lock(slot: &Mutex<Published>) -> MutexGuard<'_, Published> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

impl LiveServer {
    /// Binds `address` (`host:port`, or a port alone for this machine
    /// only) and starts serving. Errors say why in words: the address is
    /// in use, is not this machine's, or cannot be read.
    pub fn start(address: &str) -> Result<LiveServer, String> {
        let spec = address.trim();
        let spec = if !spec.is_empty() && spec.chars().all(|c| c.is_ascii_digit()) {
            format!("127.0.0.1:{spec}")
        } else {
            spec.to_string()
        };
        let wanted: SocketAddr = spec
            .to_socket_addrs()
            .map_err(|e| format!("--ui {address}: not an address to listen on ({e}); give host:port, e.g. {EXAMPLE_ADDRESS}"))?
            .next()
            .ok_or_else(|| format!("--ui {address}: the name has no address"))?;
        let listener = TcpListener::bind(wanted).map_err(|e| {
            let why = match e.kind() {
                std::io::ErrorKind::AddrInUse => format!(
                    "the address is in use: another program listens on {wanted}; choose another port, e.g. --ui {}:{}",
                    wanted.ip(),
                    wanted.port().wrapping_add(1)
                ),
                std::io::ErrorKind::AddrNotAvailable => format!(
                    "{} is not an address of this machine; --ui listens on one of this machine's own addresses, such as {EXAMPLE_ADDRESS} (reachable from this machine only; a port alone means that address)",
                    wanted.ip()
                ),
                std::io::ErrorKind::PermissionDenied => format!(
                    "not allowed to listen on port {} (ports below 1024 need privileges); choose a port above 1024",
                    wanted.port()
                ),
                _ => e.to_string(),
            };
            format!("cannot serve the live page on {wanted}: {why}")
        })?;
        let address = listener
            .local_addr()
            .map_err(|e| format!("cannot serve the live page: {e}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("cannot serve the live page: {e}"))?;
        let published = Arc::new(Mutex::new(Published::default()));
        let serving = Arc::clone(&published);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| format!("cannot serve the live page: {e}"))?;
        std::thread::Builder::new()
            .name("tidemark-ui".into())
            .spawn(move || runtime.block_on(serve(listener, serving)))
            .map_err(|e| format!("cannot serve the live page: {e}"))?;
        Ok(LiveServer { address, published })
    }

    /// The page's address, as a user types it.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// The running query's records so far.
    pub fn publish(&self, running: QueryReport) {
        lock(&self.published).running = Some(Arc::new(running));
    }

    /// The running query failed: it is no longer shown (its error is on
    /// stderr).
    pub fn failed(&self) {
        lock(&self.published).running = None;
    }

    /// A query has finished: its final records.
    pub fn finished(&self, done: QueryReport) {
        let mut published = lock(&self.published);
        published.running = None;
        published.finished.push(Arc::new(done));
    }
}

/// Accepts connections until the process ends.
async fn serve(listener: TcpListener, published: Arc<Mutex<Published>>) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let clients = Arc::new(tokio::sync::Semaphore::new(MAX_CLIENTS));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of sockets, say: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        // Past the limit, the newcomer is closed at once.
        let Ok(permit) = Arc::clone(&clients).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let published = Arc::clone(&published);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let published = Arc::clone(&published);
                async move { Ok::<_, std::convert::Infallible>(respond(&request, &published)) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .keep_alive(false)
                .serve_connection(TokioIo::new(stream), service);
            // A client that takes longer is dropped, its socket closed.
            let _ = tokio::time::timeout(CLIENT_TIMEOUT, connection).await;
            drop(permit);
        });
    }
}

/// The answer to one request.
fn respond(request: &Request<Incoming>, published: &Mutex<Published>) -> Response<Full<Bytes>> {
    let (finished, running) = {
        let p = lock(published);
        (p.finished.clone(), p.running.clone())
    };
    let (status, kind, body) = match (request.method(), request.uri().path()) {
        (&Method::GET | &Method::HEAD, "/") => {
            let mut queries: Vec<&QueryReport> = finished.iter().map(|q| q.as_ref()).collect();
            queries.extend(running.as_deref());
            let status = if running.is_some() {
                "running: this page refreshes itself"
            } else if queries.is_empty() {
                "waiting for the first query"
            } else {
                "no query running"
            };
            (
                StatusCode::OK,
                "text/html; charset=utf-8",
                page::render_live(&queries, status, REFRESH_SECONDS),
            )
        }
        (&Method::GET | &Method::HEAD, "/metrics") => {
            let query = running
                .as_ref()
                .map(|q| (finished.len() + 1, q))
                .or_else(|| finished.last().map(|q| (finished.len(), q)));
            (
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                query.map_or_else(String::new, |(n, q)| metrics::encode(n, q)),
            )
        }
        (&Method::GET | &Method::HEAD, _) => (
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            "not found: this server has / (the live page) and /metrics\n".to_string(),
        ),
        _ => (
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "only GET is served\n".to_string(),
        ),
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Ok(value) = kind.parse() {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, value);
    }
    if let Ok(value) = "no-store".parse() {
        response
            .headers_mut()
            .insert(hyper::header::CACHE_CONTROL, value);
    }
    response
}
