//! `memlayers mcp --http ADDR:PORT`: the same tools over MCP's streamable HTTP transport, for
//! hosts that attach remote servers and for several agents sharing one memory.
//!
//! rmcp's `StreamableHttpService` (a tower service: sessions, SSE streams, the `Host` and
//! `Origin` checks) answers at `/mcp`, driven by hyper's HTTP/1 server, one task per
//! connection on a current-thread tokio runtime. Tool calls run on tokio's blocking pool, so a
//! slow call does not hold up other clients; each client has its own session; writes from
//! every session are serialised by the data root's writer lock, as between processes.
//!
//! Security rules (docs/install.md, "MCP over HTTP"):
//! - the default address is loopback (`127.0.0.1:8765`);
//! - a request with an `Origin` header is served only when the origin is a localhost one
//!   (`http(s)://localhost`, `127.0.0.1`, `[::1]`, any port), otherwise 403: the MCP
//!   specification's defence against DNS rebinding; a request without `Origin` (not a browser)
//!   passes;
//! - on a loopback address the `Host` header must name a loopback host (rmcp's default list),
//!   also 403 otherwise;
//! - `MEMLAYERS_MCP_TOKEN` set: every request needs `Authorization: Bearer <token>`, else 401;
//! - a non-loopback address without a token is refused at start (bad input, exit 2), and then
//!   any `Host` is accepted (the token is the guard; clients name the machine as they like).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service;

use super::Server;
use crate::{Error, Memory, Result};

/// The environment variable holding the bearer token clients must send.
pub const TOKEN_ENV: &str = "MEMLAYERS_MCP_TOKEN";

/// The path the MCP endpoint answers at (the usual one: `http://HOST:PORT/mcp`).
pub const ENDPOINT: &str = "/mcp";

/// Browser origins that may call the server: this machine's, any scheme of http/https, any
/// port. A page served from anywhere else gets 403.
const LOCAL_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// The bearer token from `MEMLAYERS_MCP_TOKEN`: `None` when unset. Errors (bad input): set
/// but empty or not valid Unicode (a token nobody could type is a mistake, not "no token").
pub fn token_from_env() -> Result<Option<String>> {
    match std::env::var(TOKEN_ENV) {
        Ok(t) if t.trim().is_empty() => Err(Error::bad(TOKEN_ENV, "is set but empty; unset it or give a token")),
        Ok(t) => Ok(Some(t)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(Error::bad(TOKEN_ENV, "is not valid UTF-8")),
    }
}

/// Refuses to serve `addr` to other machines without a token. Errors (bad input, field
/// `http`): `addr` is not a loopback address (127.0.0.0/8, ::1) and `token` is `None`.
pub fn check_bind(addr: SocketAddr, token: Option<&str>) -> Result<()> {
    if addr.ip().is_loopback() || token.is_some() {
        return Ok(());
    }
    Err(Error::bad(
        "http",
        format!(
            "{addr} is not a loopback address: serving the memory beyond this machine needs a bearer token; \
             set {TOKEN_ENV} (clients send `Authorization: Bearer <token>`) or bind 127.0.0.1"
        ),
    ))
}

/// Whether `headers` carry `Authorization: Bearer <token>` (scheme case-insensitive, as RFC
/// 9110 §11.1 says of auth schemes). The token is compared in time independent of where it
/// first differs.
fn authorized(headers: &http::HeaderMap, token: &str) -> bool {
    let Some(v) = headers.get(http::header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let Some((scheme, given)) = v.split_once(' ') else {
        return false;
    };
    scheme.eq_ignore_ascii_case("bearer") && constant_time_eq(given.trim().as_bytes(), token.as_bytes())
}

/// Byte equality whose time depends on the lengths only, not on the first differing byte.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A plain-text response with `status`.
fn plain(status: StatusCode, text: &str) -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let mut r = Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

/// Serves MCP over streamable HTTP on `addr` until SIGTERM / SIGINT / SIGHUP, then writes
/// pending usage hits. `token`: the bearer token every request must carry (see the module
/// doc). Prints `memlayers: MCP over streamable HTTP at http://ADDR/mcp` on stderr once the
/// socket is bound (with the real port when `addr` has port 0). Errors: the address is not
/// loopback and there is no token (bad input, before anything is bound), the address cannot be
/// bound, the runtime cannot start, the final usage write fails.
pub fn serve_http(mem: Memory, addr: SocketAddr, token: Option<String>) -> Result<()> {
    check_bind(addr, token.as_deref())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<tokio runtime>", e))?;
    let mem = Arc::new(mem);
    let mut config =
        StreamableHttpServerConfig::default().with_allowed_origins(LOCAL_ORIGINS).enforce_origin_validation();
    if !addr.ip().is_loopback() {
        config = config.disable_allowed_hosts();
    }
    let ct = config.cancellation_token.clone();
    let factory_mem = mem.clone();
    let service = StreamableHttpService::new(
        move || Ok(Server::new(factory_mem.clone()).on_blocking_pool()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Option<Arc<str>> = token.map(Arc::from);
    let served = rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|e| Error::io(format!("<listen {addr}>"), e))?;
        let bound = listener.local_addr().map_err(|e| Error::io(format!("<listen {addr}>"), e))?;
        eprintln!("memlayers: MCP over streamable HTTP at http://{bound}{ENDPOINT}");
        let stop = super::super::stop_signal();
        tokio::pin!(stop);
        loop {
            let (stream, _peer) = tokio::select! {
                _ = &mut stop => break,
                accepted = listener.accept() => match accepted {
                    Ok(a) => a,
                    // A failed accept (out of descriptors, a peer that reset first) ends
                    // that connection, not the server.
                    Err(e) => {
                        log::warn!("MCP over HTTP: accept failed: {e}");
                        continue;
                    }
                },
            };
            let service = service.clone();
            let token = token.clone();
            let handler = hyper::service::service_fn(move |req: Request<Incoming>| {
                let mut service = service.clone();
                let token = token.clone();
                async move {
                    if req.uri().path() != ENDPOINT {
                        return Ok::<_, Infallible>(plain(
                            StatusCode::NOT_FOUND,
                            "not found: the MCP endpoint is /mcp",
                        ));
                    }
                    if let Some(t) = token.as_deref()
                        && !authorized(req.headers(), t)
                    {
                        let mut r = plain(StatusCode::UNAUTHORIZED, "unauthorized: send Authorization: Bearer <token>");
                        r.headers_mut()
                            .insert(http::header::WWW_AUTHENTICATE, http::HeaderValue::from_static("Bearer"));
                        return Ok(r);
                    }
                    service.call(req).await
                }
            });
            tokio::spawn(async move {
                let conn = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), handler);
                // A client that goes away mid-request is its own business.
                let _ = conn.await;
            });
        }
        ct.cancel();
        Ok::<(), Error>(())
    });
    // Open SSE streams are left to the runtime's shutdown instead of waiting for clients.
    rt.shutdown_background();
    served?;
    mem.flush_usage()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_loopback_address_needs_a_token() {
        let lan: SocketAddr = "0.0.0.0:8765".parse().unwrap();
        let e = check_bind(lan, None).unwrap_err();
        assert!(e.is_bad_input());
        assert!(e.to_string().contains(TOKEN_ENV), "{e}");
        assert!(check_bind(lan, Some("s3cret")).is_ok());
        assert!(check_bind("127.0.0.1:0".parse().unwrap(), None).is_ok());
        assert!(check_bind("[::1]:9".parse().unwrap(), None).is_ok());
        assert!(check_bind("[::]:9".parse().unwrap(), None).is_err());
    }

    #[test]
    fn bearer_token_must_match_exactly() {
        let mut h = http::HeaderMap::new();
        assert!(!authorized(&h, "abc"));
        for (value, ok) in [
            ("Bearer abc", true),
            ("bearer abc", true),
            ("Bearer abd", false),
            ("Bearer ab", false),
            ("Bearer abcd", false),
            ("Basic abc", false),
            ("abc", false),
        ] {
            h.insert(http::header::AUTHORIZATION, value.parse().unwrap());
            assert_eq!(authorized(&h, "abc"), ok, "{value}");
        }
    }
}
