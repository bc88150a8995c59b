//! The program's side of the protocol as lexprobe reads it: the request line sent for one
//! input (the input fields and a `request_id`), the reply lines read back with a bound on
//! their length (a line that is too long or not UTF-8 is reported, not kept), and the
//! interpretation of one reply (outputs, the program's own error, or malformed).

use crate::system::RunFailure;
use crate::value::{record_from_json, record_to_json, Record};
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{sync_channel, Receiver};

/// The key of the request id in requests and (when the program echoes it) replies.
pub(crate) const REQUEST_ID_KEY: &str = "request_id";

/// Longest reply line accepted (1 MiB); longer lines are reported without being kept.
pub(crate) const MAX_REPLY_BYTES: usize = 1 << 20;

/// Reply lines read ahead of the adapter before the reading thread waits.
const LINES_AHEAD: usize = 16;

/// One line of the program's standard output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ReplyLine {
    Text(String),
    /// A line of at least `bytes` bytes, over [`MAX_REPLY_BYTES`].
    TooLong {
        bytes: usize,
    },
    /// A line that is not UTF-8, with the invalid bytes replaced.
    NotUtf8 {
        shown: String,
    },
}

impl ReplyLine {
    /// Whether the line is blank (blank lines are not replies and are skipped).
    pub(crate) fn is_blank(&self) -> bool {
        matches!(self, ReplyLine::Text(t) if t.trim().is_empty())
    }
}

/// The request line for one input: its fields as a JSON object, plus `request_id` when an
/// id is given (unless the input has a field of that name).
pub(crate) fn request_line(input: &Record, id: Option<u64>) -> String {
    let mut json = record_to_json(input);
    if let (Some(id), serde_json::Value::Object(object)) = (id, &mut json) {
        object
            .entry(REQUEST_ID_KEY.to_string())
            .or_insert(serde_json::Value::from(id));
    }
    format!("{json}\n")
}

/// Reads one line of at most `limit` bytes kept; `None` at the end of the stream.
fn read_bounded_line(reader: &mut impl BufRead, limit: usize) -> Option<ReplyLine> {
    let mut line: Vec<u8> = Vec::new();
    let mut total = 0usize;
    let mut read_any = false;
    loop {
        let (consumed, complete) = {
            let available = match reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => &[],
            };
            if available.is_empty() {
                break;
            }
            read_any = true;
            let newline = available.iter().position(|b| *b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            let room = (limit + 1).saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            total += chunk.len();
            (
                chunk.len() + usize::from(newline.is_some()),
                newline.is_some(),
            )
        };
        reader.consume(consumed);
        if complete {
            return Some(finish_line(line, total, limit));
        }
    }
    read_any.then(|| finish_line(line, total, limit))
}

fn finish_line(mut line: Vec<u8>, total: usize, limit: usize) -> ReplyLine {
    if total > limit {
        return ReplyLine::TooLong { bytes: total };
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    match String::from_utf8(line) {
        Ok(text) => ReplyLine::Text(text),
        Err(e) => ReplyLine::NotUtf8 {
            shown: String::from_utf8_lossy(e.as_bytes()).into_owned(),
        },
    }
}

/// Forwards the lines of a stream to a channel, at most 16 lines ahead of the
/// reader (the channel closes at the end of the stream, or when the receiver is dropped).
pub(crate) fn reply_lines(stream: impl Read + Send + 'static) -> Receiver<ReplyLine> {
    let (sender, receiver) = sync_channel(LINES_AHEAD);
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        while let Some(line) = read_bounded_line(&mut reader, MAX_REPLY_BYTES) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// One interpreted reply: the outputs or the program's own error, and the request id the
/// program echoed, if any.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub outputs: Result<Record, RunFailure>,
    pub request_id: Option<serde_json::Value>,
}

/// Interprets one reply line: `{"request_id": .., "outputs": {...}}`, `{...outputs...}` or
/// `{"error": "..."}` (each with an optional `request_id`); anything else is malformed.
pub(crate) fn parse_reply(line: &str) -> Result<Reply, RunFailure> {
    let malformed = || RunFailure::Malformed {
        reply: line.to_string(),
    };
    let parsed: serde_json::Value = serde_json::from_str(line.trim()).map_err(|_| malformed())?;
    let serde_json::Value::Object(mut object) = parsed else {
        return Err(malformed());
    };
    // `"request_id": null` counts as no id.
    let request_id = object.remove(REQUEST_ID_KEY).filter(|id| !id.is_null());
    if let Some(error) = object.get("error") {
        if object.get("outputs").is_none() && !error.is_null() {
            let message = match error {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            return Ok(Reply {
                outputs: Err(RunFailure::Reported { message }),
                request_id,
            });
        }
    }
    let outputs = match object.get("outputs") {
        Some(serde_json::Value::Object(outputs)) => record_from_json(outputs),
        Some(_) => return Err(malformed()),
        None => record_from_json(&object),
    };
    Ok(Reply {
        outputs: Ok(outputs),
        request_id,
    })
}

/// Checks the id a reply carries against the request's: with request ids on, every reply
/// must echo the id of its own request; a reply with another id or none belongs to another
/// request (or is a stray JSON object the program printed).
pub(crate) fn check_request_id(
    reply: Option<&serde_json::Value>,
    expected: u64,
) -> Result<(), RunFailure> {
    match reply {
        Some(found) if found.as_u64() == Some(expected) => Ok(()),
        Some(found) => Err(RunFailure::WrongRequestId {
            expected,
            found: found.to_string(),
        }),
        None => Err(RunFailure::WrongRequestId {
            expected,
            found: "no request_id (with request ids on, the program must echo them)".to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    #[test]
    fn replies_are_outputs_errors_or_malformed() {
        let ok = parse_reply(r#"{"refund": 12.5, "status": "ok"}"#).unwrap();
        assert_eq!(ok.outputs.unwrap()["refund"], Value::Number(12.5));
        let wrapped = parse_reply(r#"{"request_id": 4, "outputs": {"tax": 3}}"#).unwrap();
        assert_eq!(wrapped.request_id, Some(serde_json::json!(4)));
        let null_id = parse_reply(r#"{"request_id": null, "tax": 1}"#).unwrap();
        assert_eq!(null_id.request_id, None);
        let outputs = wrapped.outputs.unwrap();
        assert_eq!(outputs["tax"], Value::Integer(3));
        // The id is not an output.
        assert!(!outputs.contains_key(REQUEST_ID_KEY));
        assert_eq!(
            parse_reply(r#"{"error": "conflict", "request_id": 2}"#)
                .unwrap()
                .outputs,
            Err(RunFailure::Reported {
                message: "conflict".into()
            })
        );
        for bad in [
            "Traceback (most recent call last)",
            "[1, 2]",
            "42",
            r#"{"outputs": [1]}"#,
        ] {
            assert!(
                matches!(parse_reply(bad), Err(RunFailure::Malformed { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn request_ids_are_sent_and_checked() {
        let input: Record = [("x".to_string(), Value::Integer(1))].into_iter().collect();
        let line = request_line(&input, Some(7));
        let sent: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(sent, serde_json::json!({"x": 1, "request_id": 7}));
        assert!(line.ends_with('\n'));
        assert_eq!(request_line(&input, None), "{\"x\":1}\n");
        assert_eq!(check_request_id(Some(&serde_json::json!(7)), 7), Ok(()));
        assert!(matches!(
            check_request_id(None, 7),
            Err(RunFailure::WrongRequestId { expected: 7, .. })
        ));
        assert!(matches!(
            check_request_id(Some(&serde_json::json!(6)), 7),
            Err(RunFailure::WrongRequestId { expected: 7, .. })
        ));
        assert!(check_request_id(Some(&serde_json::json!("7")), 7).is_err());
    }

    #[test]
    fn lines_are_bounded_and_checked_for_utf8() {
        let mut text: Vec<u8> = b"{\"a\": 1}\r\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 50));
        text.push(b'\n');
        text.extend(b"caf\xe9\n");
        text.extend(b"last without newline");
        let mut reader = BufReader::with_capacity(8, &text[..]);
        let mut read = Vec::new();
        while let Some(line) = read_bounded_line(&mut reader, 20) {
            read.push(line);
        }
        assert_eq!(
            read,
            vec![
                ReplyLine::Text("{\"a\": 1}".into()),
                ReplyLine::TooLong { bytes: 50 },
                ReplyLine::NotUtf8 {
                    shown: "caf\u{fffd}".into()
                },
                ReplyLine::Text("last without newline".into()),
            ]
        );
    }
}
