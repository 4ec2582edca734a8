//! Which `Host` and `Origin` the playground answers: only the loopback names with the port it
//! listens on, so that a web page elsewhere cannot drive it through DNS rebinding (its requests
//! carry the page's own host name) or from a script of another origin.

/// The host names of the loopback interface, as a browser writes them in `Host`.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Whether a `Host` header value names this server: a loopback name (`localhost` in any case)
/// with the server's `port` (or no port when it is 80).
pub fn host_allowed(host: &str, port: u16) -> bool {
    let host = host.trim();
    let (name, given) = match host.rsplit_once(':') {
        // `[::1]` alone has colons inside its brackets.
        Some((name, p)) if !p.contains(']') => (name, Some(p)),
        _ => (host, None),
    };
    let port_ok = match given {
        Some(p) => p.parse::<u16>() == Ok(port),
        None => port == 80,
    };
    port_ok && LOOPBACK.iter().any(|l| l.eq_ignore_ascii_case(name))
}

/// Whether an `Origin` header value is this server's own page: `http://` and an allowed host.
pub fn origin_allowed(origin: &str, port: u16) -> bool {
    origin
        .trim()
        .strip_prefix("http://")
        .is_some_and(|host| host_allowed(host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_with_the_port_pass() {
        for host in [
            "127.0.0.1:8022",
            "localhost:8022",
            "LocalHost:8022",
            "[::1]:8022",
        ] {
            assert!(host_allowed(host, 8022), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8022",
            "127.0.0.1:8023",
            "127.0.0.1",
            "localhost.evil.example:8022",
            "127.0.0.1.nip.io:8022",
            "[::1]",
            "",
            "127.0.0.1:8022:8022",
            "0.0.0.0:8022",
        ] {
            assert!(!host_allowed(host, 8022), "{host}");
        }
        assert!(host_allowed("localhost", 80));
        assert!(host_allowed("[::1]", 80));
    }

    #[test]
    fn only_the_playground_itself_is_an_allowed_origin() {
        assert!(origin_allowed("http://127.0.0.1:8022", 8022));
        assert!(origin_allowed("http://localhost:8022", 8022));
        for origin in [
            "http://evil.example",
            "https://127.0.0.1:8022",
            "null",
            "http://127.0.0.1:9999",
            "file://",
        ] {
            assert!(!origin_allowed(origin, 8022), "{origin}");
        }
    }
}
