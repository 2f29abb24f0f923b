//! The trip log: one line per trip, read back by `parse_trip_log`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use expect_test::expect;
use staterecord::{
    CountingStore, MemoryStore, Store, StoreError, Trip, TripLabel, TripMethod, labeled,
    parse_trip_log, summarize,
};

/// A log writer the test can read back.
#[derive(Clone, Default)]
struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedLog {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[tokio::test]
async fn counting_log_one_line_per_trip_and_read_back() {
    let log = SharedLog::default();
    let counting = CountingStore::new(Arc::new(MemoryStore::new()), Some(Box::new(log.clone())));
    let v = labeled(
        TripLabel::new("seed", "tests/seed"),
        counting.put_if_absent("estate/a", b"1"),
    )
    .await
    .unwrap();
    labeled(
        TripLabel::new("identity", "projection/bind.rs:40"),
        counting.get("estate/a"),
    )
    .await
    .unwrap();
    labeled(
        TripLabel::new("odd\tvia", "line\nbreak \\ site"),
        counting.get("estate/we\tird"),
    )
    .await
    .unwrap();
    counting
        .put_if_version("estate/a", b"2", Some(&v))
        .await
        .unwrap();
    counting.list("estate/").await.unwrap();
    counting
        .bulk_reader()
        .unwrap()
        .get_all("estate/")
        .await
        .unwrap();
    counting.delete("estate/gone", None).await.unwrap();

    expect![[r#"
        trip	put_if_absent	estate/a	seed	tests/seed
        requests	1	estate/a
        trip	get	estate/a	identity	projection/bind.rs:40
        requests	1	estate/a
        trip	get	estate/we\tird	odd\tvia	line\nbreak \\ site
        requests	1	estate/we\tird
        trip	put_if_version	estate/a	unlabeled	unlabeled
        requests	1	estate/a
        trip	list	estate/	unlabeled	unlabeled
        requests	1	estate/
        trip	get_all	estate/	unlabeled	unlabeled
        requests	1	estate/
        trip	delete	estate/gone	unlabeled	unlabeled
        requests	1	estate/gone
    "#]]
    .assert_eq(&log.text());
    assert_eq!(parse_trip_log(&log.text()).unwrap(), counting.trips());
    assert_eq!(
        parse_trip_log(&log.text()).unwrap()[2].site,
        "line\nbreak \\ site"
    );

    let counts = summarize(&counting.trips());
    assert_eq!(counts, counting.counts());
    assert_eq!(
        (counts.total, counts.distinct_keys, counts.repeat_trips),
        (7, 4, 3)
    );
    assert_eq!(counts.by_method["get"], 2);
    assert_eq!(counts.by_via["unlabeled"], 4);
    assert_eq!(counts.by_site.values().sum::<usize>(), counts.total);

    // Each trip's requests: the memory store serves every call with one.
    assert_eq!(counting.requests(), 7);

    counting.reset();
    assert_eq!(counting.total(), 0);
    assert_eq!(
        log.text().lines().count(),
        14,
        "the log keeps its lines: a trip and its requests each"
    );
}

#[test]
fn counting_log_skips_other_lines_and_names_a_malformed_one() {
    let mixed = "starting plan\ntrip\tget\tk\tv\ts\n\nWARN something else\ntrip\tlist\tp\tv\ts\n";
    let trips = parse_trip_log(mixed).unwrap();
    assert_eq!(
        trips,
        [
            Trip {
                method: TripMethod::Get,
                key: "k".into(),
                via: "v".into(),
                site: "s".into()
            },
            Trip {
                method: TripMethod::List,
                key: "p".into(),
                via: "v".into(),
                site: "s".into()
            },
        ]
    );
    for (log, line, reason) in [
        (
            "trip\tget\tk\tv\n",
            1,
            "expected four tab-separated fields after 'trip'",
        ),
        ("x\ntrip\tfetch\tk\tv\ts\n", 2, "unknown method"),
        ("trip\tget\tk\\x\tv\ts\n", 1, "unknown escape sequence"),
    ] {
        let err = parse_trip_log(log).unwrap_err();
        assert!(
            matches!(err, StoreError::MalformedTripLog { line: l, reason: r } if l == line && r == reason),
            "{err}"
        );
    }
    assert_eq!(
        parse_trip_log("trip\tget\tk\tv\n").unwrap_err().to_string(),
        "trip log line 1 is malformed: expected four tab-separated fields after 'trip'"
    );
}

#[tokio::test]
async fn counting_log_here_names_the_calling_line() {
    let counting = CountingStore::new(Arc::new(MemoryStore::new()), None);
    let here = line!() + 1;
    let label = TripLabel::here("identity");
    labeled(label, counting.get("estate/a")).await.unwrap();
    let site = &counting.trips()[0].site;
    assert!(
        site.starts_with("staterecord/tests/it/counting_log.rs:"),
        "{site}"
    );
    assert_eq!(site.rsplit(':').next().unwrap(), here.to_string());
}
