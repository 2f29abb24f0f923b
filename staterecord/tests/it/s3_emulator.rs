//! The local AWS emulator as the S3 tests see it: it must be there, and a dead endpoint must fail the test.

use staterecord::testkit::emulator::{EmulatorError, S3Emulator};

#[tokio::test]
async fn s3_emulator_round_trips_an_object() {
    let emu = S3Emulator::from_env()
        .await
        .expect("the AWS emulator must be running");
    let bucket = emu.fresh_bucket("smoke").await.expect("bucket");
    emu.client
        .put_object()
        .bucket(&bucket)
        .key("k")
        .body(b"payload".to_vec().into())
        .send()
        .await
        .expect("put");
    let got = emu
        .client
        .get_object()
        .bucket(&bucket)
        .key("k")
        .send()
        .await
        .expect("get");
    let bytes = got.body.collect().await.expect("body").into_bytes();
    assert_eq!(&bytes[..], b"payload");
}

#[tokio::test]
async fn s3_emulator_dead_endpoint_is_an_error_not_a_skip() {
    // A port that was free a moment ago: nothing answers there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = S3Emulator::connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect_err("nothing listens on the port");
    assert!(matches!(err, EmulatorError::Unreachable { .. }), "{err}");
    assert!(err.to_string().contains(&port.to_string()), "{err}");
}
