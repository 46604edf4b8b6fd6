//! The server's stdin, with a bound on one request. A line longer than the bound is never held
//! in memory: it is read through, and the server sees in its place a small request for the
//! method `gitmem/request_too_large` with the same id, which it answers with a JSON-RPC error
//! (invalid request, with both sizes); the next line is served as usual.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// The method the server sees in place of a request over the bound.
pub const TOO_LARGE_METHOD: &str = "gitmem/request_too_large";

/// Largest request line read whole: room for a note of the largest size (32 MiB) escaped in
/// JSON.
pub const MAX_REQUEST_BYTES: usize = 80 * 1024 * 1024;

/// Reads `input` in a task and hands its lines, bounded, to the returned reader.
pub fn bounded<R: AsyncRead + Unpin + Send + 'static>(
    mut input: R,
    max_bytes: usize,
) -> tokio::io::DuplexStream {
    let (reader, mut writer) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        let mut line: Vec<u8> = Vec::new();
        let mut oversize: Option<(usize, IdScanner)> = None;
        loop {
            let n = match input.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for piece in buf[..n].split_inclusive(|b| *b == b'\n') {
                let ends_line = piece.ends_with(b"\n");
                match &mut oversize {
                    Some((size, scanner)) => {
                        *size += piece.len();
                        scanner.feed(piece);
                    }
                    None => {
                        line.extend_from_slice(piece);
                        if line.len() > max_bytes {
                            let mut scanner = IdScanner::default();
                            scanner.feed(&line);
                            oversize = Some((line.len(), scanner));
                            line = Vec::new();
                        }
                    }
                }
                if !ends_line {
                    continue;
                }
                let out = match oversize.take() {
                    Some((size, scanner)) => {
                        tracing::warn!("a request of {size} bytes is over the limit of {max_bytes}; answered with an error");
                        match scanner.id {
                            Some(id) => format!(
                                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{TOO_LARGE_METHOD}\",\"params\":{{\"bytes\":{size},\"limit\":{max_bytes}}}}}\n"
                            )
                            .into_bytes(),
                            // A notification gets no answer.
                            None => Vec::new(),
                        }
                    }
                    None => std::mem::take(&mut line),
                };
                if writer.write_all(&out).await.is_err() {
                    return;
                }
            }
        }
        if !line.is_empty() {
            let _ = writer.write_all(&line).await;
        }
    });
    reader
}

/// Finds the top-level `"id"` member of a JSON object fed in pieces, keeping only the id.
#[derive(Default)]
struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The last string at depth 1 (up to a few bytes: only `id` matters).
    string: Vec<u8>,
    /// The bytes of the id's value while it is read.
    value: Option<Vec<u8>>,
    id: Option<String>,
}

impl IdScanner {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if let Some(value) = &mut self.value {
                let ends = !self.in_string && matches!(b, b',' | b'}') && self.depth == 1;
                if ends {
                    let text = String::from_utf8_lossy(value).trim().to_string();
                    if !text.is_empty() && text.len() <= 100 {
                        self.id = Some(text);
                    }
                    self.value = None;
                } else if value.len() <= 100 {
                    value.push(b);
                }
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                } else if self.depth == 1 && self.string.len() < 8 {
                    self.string.push(b);
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.string.clear();
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                b':' if self.depth == 1
                    && self.value.is_none()
                    && self.id.is_none()
                    && self.string == b"id" =>
                {
                    self.value = Some(Vec::new());
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_level_id_is_found_wherever_it_stands() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"m","params":{"id":1}}"#,
                Some("7"),
            ),
            (
                r#"{"params":{"id":1,"x":"\"id\":3"},"id":"abc","jsonrpc":"2.0"}"#,
                Some("\"abc\""),
            ),
            (r#"{"method":"notifications/x","params":{"id":2}}"#, None),
            (r#"{ "id" : 42 }"#, Some("42")),
        ];
        for (line, expected) in cases {
            for split in [1, 3, line.len()] {
                let mut scanner = IdScanner::default();
                for piece in line.as_bytes().chunks(split) {
                    scanner.feed(piece);
                }
                assert_eq!(
                    scanner.id.as_deref(),
                    expected,
                    "{line} in pieces of {split}"
                );
            }
        }
    }

    #[tokio::test]
    async fn an_oversize_line_becomes_a_small_request_and_the_next_line_passes() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{{\"content\":\"{}\"}}}}\n",
            "x".repeat(10_000)
        );
        let input = format!("{big}{{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}}\n");
        let mut out = String::new();
        bounded(std::io::Cursor::new(input.into_bytes()), 1_000)
            .read_to_string(&mut out)
            .await
            .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[0].contains("\"id\":5") && lines[0].contains("gitmem/request_too_large"));
        assert_eq!(lines[1], r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_bytes_in_any_pieces_never_panic_the_scanner(
            bytes in proptest::collection::vec(any::<u8>(), 0..512),
            piece in 1usize..64,
        ) {
            let mut scanner = IdScanner::default();
            for chunk in bytes.chunks(piece) {
                scanner.feed(chunk);
            }
            prop_assert!(scanner.id.as_ref().is_none_or(|id| id.len() <= 100));
        }
    }
}
