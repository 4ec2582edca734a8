#![allow(dead_code)]
//! What the playground's tests share: starting a server on a free loopback port, one request
//! written by hand over a `TcpStream` (HTTP/1.1, `Connection: close`), and reading the response.

use che_cli::serve::limits::Limits;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Starts a server with `limits` on a free loopback port, in a thread of its own.
pub fn start(limits: Limits) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = che_cli::serve::run(0, limits, |addr| {
            let _ = tx.send(addr);
        });
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the server starts")
}

/// Status and body of one request with a JSON body.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("send head");
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse_response(&raw)
}

/// The status code and the body of a whole response as it came off the
/// socket (status 0 when there is none).
pub fn parse_response(raw: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}
