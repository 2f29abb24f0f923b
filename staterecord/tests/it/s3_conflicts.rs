//! S3 answers the emulator never gives, from a tiny local HTTP server speaking S3's wire format: a 409
//! `ConditionalRequestConflict` (real S3, for racing conditional writes), KMS access denials, and a
//! bucket whose settings the role may not read.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_http_client::tls;
use staterecord::{
    BucketFinding, BucketSetting, KmsDenialPolicy, S3Store, Store, StoreError, Version,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: BTreeMap<String, String>,
}

/// Status, extra headers and body of one answer.
type Reply = (u16, Vec<(&'static str, String)>, String);

fn s3_error(status: u16, code: &str, message: &str) -> Reply {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message>\
         <RequestId>req-1</RequestId></Error>"
    );
    (
        status,
        vec![("Content-Type", "application/xml".to_owned())],
        body,
    )
}

/// A fake S3 endpoint: answers every request with `reply` and records it.
struct FakeS3 {
    listener: TcpListener,
    seen: Arc<Mutex<Vec<Seen>>>,
    gate: Option<Arc<Gate>>,
}

/// Holds object reads until `size` of them wait at once, and records the most that ever waited together.
struct Gate {
    barrier: tokio::sync::Barrier,
    in_flight: AtomicUsize,
    most: AtomicUsize,
}

impl Gate {
    fn new(size: usize) -> Gate {
        Gate {
            barrier: tokio::sync::Barrier::new(size),
            in_flight: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        }
    }
}

impl FakeS3 {
    async fn bind() -> FakeS3 {
        FakeS3 {
            listener: TcpListener::bind("127.0.0.1:0").await.unwrap(),
            seen: Arc::default(),
            gate: None,
        }
    }

    fn client(&self) -> aws_sdk_s3::Client {
        let http = aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(
                tls::rustls_provider::CryptoMode::Ring,
            ))
            .build_https();
        let config = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("test", "test", None, None, "fake"))
            .endpoint_url(format!("http://{}", self.listener.local_addr().unwrap()))
            .force_path_style(true)
            .http_client(http)
            .build();
        aws_sdk_s3::Client::from_conf(config)
    }

    /// Serves until `work` finishes, then returns what `work` returned.
    async fn run<T>(
        self,
        reply: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
        work: impl Future<Output = T>,
    ) -> (T, Vec<Seen>) {
        let reply = Arc::new(reply);
        let seen = Arc::clone(&self.seen);
        let serve = async {
            let mut connections = JoinSet::new();
            loop {
                let (socket, _) = self.listener.accept().await.unwrap();
                let (reply, seen, gate) =
                    (Arc::clone(&reply), Arc::clone(&seen), self.gate.clone());
                connections.spawn(async move {
                    answer(socket, reply.as_ref(), &seen, gate.as_deref()).await
                });
            }
        };
        let out = tokio::select! {
            out = work => out,
            () = serve => unreachable!("the server loops until the work is done"),
        };
        let seen = self.seen.lock().unwrap().clone();
        (out, seen)
    }
}

async fn answer(
    mut socket: TcpStream,
    reply: &(dyn Fn(&Seen) -> Reply + Send + Sync),
    seen: &Mutex<Vec<Seen>>,
    gate: Option<&Gate>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await.unwrap();
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap().split(' ');
    let (method, path) = (
        request_line.next().unwrap().to_owned(),
        request_line.next().unwrap().to_owned(),
    );
    let headers: BTreeMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let body_len: usize = headers
        .get("content-length")
        .map_or(0, |v| v.parse().unwrap());
    while buf.len() < head_end + body_len {
        let n = socket.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the client closed mid-body");
        buf.extend_from_slice(&chunk[..n]);
    }
    let request = Seen {
        method,
        path,
        headers,
    };
    let gated = gate.filter(|_| request.method == "GET" && !request.path.contains("list-type=2"));
    if let Some(gate) = gated {
        let now = gate.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        gate.most.fetch_max(now, Ordering::SeqCst);
        gate.barrier.wait().await;
        // Counted down before the answer leaves, so a read the client starts after this answer can never
        // overlap it in the count.
        gate.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
    let (status, extra, body) = reply(&request);
    let is_head = request.method == "HEAD";
    seen.lock().unwrap().push(request);
    let mut response = format!(
        "HTTP/1.1 {status} Fake\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in extra {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    if !is_head {
        response.push_str(&body);
    }
    socket.write_all(response.as_bytes()).await.unwrap();
    socket.shutdown().await.unwrap();
}

fn etag(value: &str) -> Reply {
    (200, vec![("ETag", value.to_owned())], String::new())
}

#[tokio::test]
async fn s3_conflicts_409_on_create_is_a_version_conflict_with_the_actual_version() {
    let fake = FakeS3::bind().await;
    let store = S3Store::new(fake.client(), "records");
    let (result, seen) = fake
        .run(
            |r| match r.method.as_str() {
                "PUT" => s3_error(409, "ConditionalRequestConflict", "A conflicting conditional operation is currently in progress against this resource. Please try again."),
                "HEAD" => etag("\"winner-etag\""),
                other => panic!("unexpected {other}"),
            },
            store.put_if_absent("estate/a", b"mine"),
        )
        .await;
    let conflict = result
        .unwrap_err()
        .as_conflict()
        .cloned()
        .expect("a version conflict");
    assert_eq!(conflict.key, "estate/a");
    assert_eq!(conflict.expected, None);
    assert_eq!(conflict.actual, Version::new("\"winner-etag\""));
    assert_eq!(
        conflict.to_string(),
        "version conflict on record \"estate/a\": expected no record, found version \"winner-etag\""
    );
    assert_eq!(
        seen.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(),
        ["PUT", "HEAD"]
    );
    assert_eq!(
        seen[0].headers.get("if-none-match").map(String::as_str),
        Some("*")
    );
    assert!(
        seen[0].path.starts_with("/records/estate/a"),
        "{}",
        seen[0].path
    );
}

#[tokio::test]
async fn s3_conflicts_409_on_update_names_both_versions() {
    let fake = FakeS3::bind().await;
    let store = S3Store::new(fake.client(), "records");
    let mine = Version::new("\"mine\"").unwrap();
    let (result, seen) = fake
        .run(
            |r| match r.method.as_str() {
                "PUT" => s3_error(409, "ConditionalRequestConflict", "conflict"),
                "HEAD" => etag("\"theirs\""),
                other => panic!("unexpected {other}"),
            },
            store.put_if_version("estate/a", b"next", Some(&mine)),
        )
        .await;
    let conflict = result
        .unwrap_err()
        .as_conflict()
        .cloned()
        .expect("a version conflict");
    assert_eq!(
        (conflict.expected, conflict.actual),
        (Some(mine), Version::new("\"theirs\""))
    );
    assert_eq!(
        seen[0].headers.get("if-match").map(String::as_str),
        Some("\"mine\"")
    );
}

#[tokio::test]
async fn s3_conflicts_412_then_record_gone_is_a_conflict_with_no_record() {
    let fake = FakeS3::bind().await;
    let store = S3Store::new(fake.client(), "records");
    let mine = Version::new("\"mine\"").unwrap();
    let (result, _) = fake
        .run(
            |r| match r.method.as_str() {
                "DELETE" => s3_error(
                    412,
                    "PreconditionFailed",
                    "At least one of the pre-conditions you specified did not hold",
                ),
                "HEAD" => (404, vec![], String::new()),
                other => panic!("unexpected {other}"),
            },
            store.delete("estate/a", Some(&mine)),
        )
        .await;
    let conflict = result
        .unwrap_err()
        .as_conflict()
        .cloned()
        .expect("a version conflict");
    assert_eq!((conflict.expected, conflict.actual), (Some(mine), None));
}

const KMS_PUT: &str = "User: arn:aws:sts::111122223333:assumed-role/liveplan-ci/run-42 is not authorized to \
     perform: kms:GenerateDataKey on resource: arn:aws:kms:us-east-2:111122223333:key/k-1 because no \
     resource-based policy allows the kms:GenerateDataKey action";
const KMS_GET: &str = "User: arn:aws:sts::111122223333:assumed-role/liveplan-ci/run-42 is not authorized to \
     perform: kms:Decrypt on resource: arn:aws:kms:us-east-2:111122223333:key/k-1 because no \
     resource-based policy allows the kms:Decrypt action";

#[tokio::test]
async fn s3_conflicts_kms_denials_become_kms_denied() {
    let fake = FakeS3::bind().await;
    let store = S3Store::new(fake.client(), "records");
    let ((put, get), _) = fake
        .run(
            |r| match r.method.as_str() {
                "PUT" => s3_error(403, "AccessDenied", KMS_PUT),
                "GET" => s3_error(403, "AccessDenied", KMS_GET),
                other => panic!("unexpected {other}"),
            },
            async {
                (
                    store.put_if_absent("estate/a", b"x").await,
                    store.get("estate/a").await,
                )
            },
        )
        .await;
    let Err(StoreError::KmsDenied(put)) = put else {
        panic!("{put:?}")
    };
    assert_eq!(
        (put.action.as_str(), put.where_),
        ("kms:GenerateDataKey", KmsDenialPolicy::KeyPolicy)
    );
    assert!(
        std::error::Error::source(&put).is_some(),
        "the S3 error is kept as the source"
    );
    let Err(StoreError::KmsDenied(get)) = get else {
        panic!("{get:?}")
    };
    assert_eq!(get.action, "kms:Decrypt");
    assert_eq!(
        get.key_arn.as_deref(),
        Some("arn:aws:kms:us-east-2:111122223333:key/k-1")
    );
}

#[tokio::test]
async fn s3_conflicts_plain_access_denied_is_a_backend_error() {
    let fake = FakeS3::bind().await;
    let store = S3Store::new(fake.client(), "records");
    let (result, _) = fake
        .run(
            |_| s3_error(403, "AccessDenied", "Access Denied"),
            store.get("estate/a"),
        )
        .await;
    let err = result.unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::Backend {
                op: "GetObject",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "s3 GetObject of \"estate/a\" failed");
}

#[tokio::test]
async fn s3_conflicts_unreadable_bucket_settings_are_never_ok() {
    let fake = FakeS3::bind().await;
    let store = S3Store::new(fake.client(), "records");
    let (findings, seen) = fake
        .run(
            |_| s3_error(403, "AccessDenied", "Access Denied"),
            store.check_bucket_contract(&["estate/"]),
        )
        .await;
    let findings = findings.unwrap();
    assert_eq!(
        findings,
        [
            BucketFinding {
                setting: BucketSetting::Versioning,
                ok: false,
                unreadable: true,
                found: "s3:GetBucketVersioning was denied".into()
            },
            BucketFinding {
                setting: BucketSetting::Lifecycle,
                ok: false,
                unreadable: true,
                found: "s3:GetLifecycleConfiguration was denied".into()
            },
            BucketFinding {
                setting: BucketSetting::PublicAccessBlock,
                ok: false,
                unreadable: true,
                found: "s3:GetBucketPublicAccessBlock was denied".into()
            },
        ]
    );
    assert_eq!(seen.len(), 3, "one read per setting");
    let (refused, waived) = staterecord::split_waived(&findings, &[BucketSetting::Lifecycle]);
    assert_eq!(
        refused.iter().map(|f| f.setting).collect::<Vec<_>>(),
        [BucketSetting::Versioning, BucketSetting::PublicAccessBlock]
    );
    assert_eq!(
        waived.iter().map(|f| f.setting).collect::<Vec<_>>(),
        [BucketSetting::Lifecycle]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_conflicts_get_all_keeps_at_most_its_parallelism_in_flight() {
    let mut fake = FakeS3::bind().await;
    let gate = Arc::new(Gate::new(4));
    fake.gate = Some(Arc::clone(&gate));
    let store = S3Store::new(fake.client(), "records").with_get_all_parallelism(4);
    let keys: Vec<String> = (0..12).map(|i| format!("estate/r{i:02}")).collect();
    let listing: String = keys
        .iter()
        .map(|k| format!("<Contents><Key>{k}</Key><ETag>\"e\"</ETag><Size>1</Size></Contents>"))
        .collect();
    let list_body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\
         <Name>records</Name><Prefix>estate/</Prefix><KeyCount>12</KeyCount><MaxKeys>1000</MaxKeys>\
         <IsTruncated>false</IsTruncated>{listing}</ListBucketResult>"
    );
    let (all, seen) = fake
        .run(
            move |r| {
                if r.path.contains("list-type=2") {
                    (
                        200,
                        vec![("Content-Type", "application/xml".to_owned())],
                        list_body.clone(),
                    )
                } else {
                    let name = r
                        .path
                        .rsplit('/')
                        .next()
                        .unwrap()
                        .split('?')
                        .next()
                        .unwrap()
                        .to_owned();
                    (200, vec![("ETag", format!("\"{name}\""))], name)
                }
            },
            async {
                // The gate holds reads until four are in flight: a store that kept fewer in flight would
                // never get through, so give up loudly instead of hanging.
                tokio::time::timeout(
                    std::time::Duration::from_secs(60),
                    store.bulk_reader().unwrap().get_all("estate/"),
                )
                .await
                .expect("get_all keeps four reads in flight")
            },
        )
        .await;
    let all = all.unwrap();
    assert_eq!(all.keys().cloned().collect::<Vec<_>>(), keys);
    assert_eq!(all["estate/r07"].payload, b"r07");
    assert_eq!(all["estate/r07"].version.as_str(), "\"r07\"");
    assert_eq!(
        gate.most.load(Ordering::SeqCst),
        4,
        "never more than the parallelism in flight"
    );
    assert_eq!(seen.len(), 13, "one listing and one read per key");
}
