//! The base protocol's framing, which the Debug Adapter Protocol shares
//! with the Language Server Protocol: a `Content-Length: N` header line
//! (other header lines are read and ignored), an empty line, then N bytes
//! of JSON.

use serde_json::Value;
use std::io::{BufRead, Write};

/// The largest message body read (a bound on what a peer can make the
/// adapter allocate).
pub const MAX_BODY: usize = 64 << 20;

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FramingError {
    /// The stream failed.
    #[error("cannot read a message: {0}")]
    Io(#[from] std::io::Error),
    /// The header has no usable `Content-Length`.
    #[error("a message without a valid Content-Length header")]
    NoLength,
    /// The body is larger than [`MAX_BODY`].
    #[error("a message of {0} bytes is larger than the limit of {MAX_BODY}")]
    TooLarge(usize),
    /// The body is not JSON.
    #[error("a message that is not JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Reads one message; `Ok(None)` at the end of the stream before a
/// header starts.
pub fn read_message(reader: &mut impl BufRead) -> Result<Option<Value>, FramingError> {
    let mut length = None;
    let mut started = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return if started {
                Err(FramingError::NoLength)
            } else {
                Ok(None)
            };
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if started {
                break;
            }
            continue;
        }
        started = true;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let length = length.ok_or(FramingError::NoLength)?;
    if length > MAX_BODY {
        return Err(FramingError::TooLarge(length));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(serde_json::from_slice(&body)?))
}

/// Writes one message with its header.
pub fn write_message(writer: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let body = message.to_string();
    write!(writer, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_round_trip_back_to_back() {
        let mut bytes = Vec::new();
        write_message(&mut bytes, &json!({"seq": 1, "type": "request"})).unwrap();
        write_message(&mut bytes, &json!({"seq": 2, "text": "héllo"})).unwrap();
        let mut reader = std::io::BufReader::new(&bytes[..]);
        assert_eq!(
            read_message(&mut reader).unwrap(),
            Some(json!({"seq": 1, "type": "request"}))
        );
        assert_eq!(
            read_message(&mut reader).unwrap(),
            Some(json!({"seq": 2, "text": "héllo"}))
        );
        assert!(read_message(&mut reader).unwrap().is_none());
    }

    #[test]
    fn bad_headers_and_bodies_are_errors() {
        let read = |b: &[u8]| read_message(&mut std::io::BufReader::new(b));
        assert!(matches!(
            read(b"Content-Type: x\r\n\r\n{}"),
            Err(FramingError::NoLength)
        ));
        assert!(matches!(
            read(b"Content-Length: 99999999999\r\n\r\n"),
            Err(FramingError::TooLarge(_))
        ));
        assert!(matches!(
            read(b"Content-Length: 3\r\n\r\n{]}"),
            Err(FramingError::Json(_))
        ));
        assert!(matches!(
            read(b"Content-Length: 10\r\n\r\n{}"),
            Err(FramingError::Io(_))
        ));
        assert_eq!(
            read(b"content-length: 2\r\n\r\n{}").unwrap(),
            Some(json!({}))
        );
    }
}
