//! A fake AWS endpoint on a loopback port for answers the emulator never gives (throttling, server errors,
//! denials, redirects, paged bucket listings): it answers each request with the next canned answer, in
//! order, and records what the SDK sent. Dropping it stops the server.

use std::sync::{Arc, Mutex};

use liveplan::aws::{AwsProvider, AwsProviderConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// One request as the fake received it.
#[derive(Debug, Clone)]
pub struct Received {
    /// `GET`, `PUT`, ...
    pub method: String,
    /// The path and query.
    pub target: String,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
}

impl Received {
    /// `METHOD path?query` with what varies between SDK versions left out: a trailing slash on the path,
    /// the `x-id` parameter, the order of the query parameters.
    pub fn route(&self) -> String {
        let (path, query) = self.target.split_once('?').unwrap_or((&self.target, ""));
        let path = match path.trim_end_matches('/') {
            "" => "/",
            p => p,
        };
        let mut params: Vec<&str> = query
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("x-id="))
            .collect();
        params.sort_unstable();
        if params.is_empty() {
            format!("{} {path}", self.method)
        } else {
            format!("{} {path}?{}", self.method, params.join("&"))
        }
    }

    /// The header `name` (lowercase), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One canned answer.
#[derive(Debug, Clone)]
pub struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    /// An S3-style XML document with `status`.
    pub fn xml(status: u16, body: &str) -> Answer {
        Answer {
            status,
            headers: vec![("content-type".to_owned(), "application/xml".to_owned())],
            body: body.to_owned(),
        }
    }

    /// An S3 error document.
    pub fn s3_error(status: u16, code: &str, message: &str) -> Answer {
        Answer::xml(
            status,
            &format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message><RequestId>R1</RequestId></Error>"
            ),
        )
    }

    /// A JSON answer of the tagging API (awsJson 1.1).
    pub fn json(status: u16, body: &str) -> Answer {
        Answer {
            status,
            headers: vec![(
                "content-type".to_owned(),
                "application/x-amz-json-1.1".to_owned(),
            )],
            body: body.to_owned(),
        }
    }

    /// A tagging API error.
    pub fn tagging_error(status: u16, code: &str, message: &str) -> Answer {
        Answer::json(
            status,
            &format!("{{\"__type\":\"{code}\",\"Message\":\"{message}\"}}"),
        )
    }

    /// An empty answer with `status`.
    pub fn empty(status: u16) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: String::new(),
        }
    }

    /// The same answer with one more header.
    pub fn with_header(mut self, name: &str, value: &str) -> Answer {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// The fake endpoint.
pub struct FakeAws {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    received: Arc<Mutex<Vec<Received>>>,
    _server: JoinSet<()>,
}

impl FakeAws {
    /// Starts a fake that gives `answers` in order (and a 500 once they run out).
    pub async fn start(answers: Vec<Answer>) -> FakeAws {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let mut server = JoinSet::new();
        server.spawn(async move {
            let mut answers = answers.into_iter();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let answer = answers
                    .next()
                    .unwrap_or_else(|| Answer::s3_error(500, "InternalError", "no more answers"));
                serve(stream, answer, &log).await;
            }
        });
        FakeAws {
            endpoint,
            received,
            _server: server,
        }
    }

    /// What the fake received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// A provider for `region` talking to this fake, with static test credentials.
    pub async fn provider(&self, region: &str, config: AwsProviderConfig) -> AwsProvider {
        let shared = staterecord::s3::sdk_config_from_env(
            Some(region.to_owned()),
            Some(self.endpoint.clone()),
        )
        .await
        .to_builder()
        .credentials_provider(aws_sdk_s3::config::SharedCredentialsProvider::new(
            aws_sdk_s3::config::Credentials::new("AKIDTEST", "secret", None, None, "test"),
        ))
        .build();
        AwsProvider::from_sdk_config(&shared, &config).unwrap()
    }
}

/// Reads one request from `stream`, records it and writes `answer`, then closes the connection.
async fn serve(mut stream: TcpStream, answer: Answer, log: &Mutex<Vec<Received>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_owned();
    let target = first.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body = String::from_utf8_lossy(&buf[head_end..]).into_owned();
    log.lock().unwrap().push(Received {
        method: method.clone(),
        target,
        headers,
        body,
    });
    let mut out = format!("HTTP/1.1 {} Fake\r\n", answer.status);
    for (k, v) in &answer.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    let length = if method == "HEAD" {
        0
    } else {
        answer.body.len()
    };
    out.push_str(&format!(
        "content-length: {length}\r\nx-amz-request-id: R1\r\nconnection: close\r\n\r\n"
    ));
    if method != "HEAD" {
        out.push_str(&answer.body);
    }
    let _ = stream.write_all(out.as_bytes()).await;
    let _ = stream.shutdown().await;
}
