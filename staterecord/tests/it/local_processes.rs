//! The local store across separate processes: a CAS race between processes, and writers killed with
//! SIGKILL mid-write.
//!
//! Child processes are this test binary run again with `STATERECORD_IT_WORKER` naming a worker mode; only
//! [`local_process_worker`] acts on it, every other test ignores it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use staterecord::testkit::conformance;
use staterecord::{LocalStore, Store};

const WORKER_ENV: &str = "STATERECORD_IT_WORKER";
const DIR_ENV: &str = "STATERECORD_IT_DIR";
const RACE_KEY: &str = "race/counter";
const CRASH_KEYS: [&str; 4] = ["crash/a", "crash/b", "crash/deep/c", "crash/deep/d"];
/// Each crash-test record is one generation number repeated to this size, so a torn or mixed write shows.
const CRASH_PAYLOAD_LEN: usize = 64 * 1024;

fn spawn_worker(mode: &str, dir: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "local_processes::local_process_worker",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env(WORKER_ENV, mode)
        .env(DIR_ENV, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the test binary as a worker")
}

/// The worker entry point: does nothing unless this process was started as a worker.
#[test]
fn local_process_worker() {
    let Ok(mode) = std::env::var(WORKER_ENV) else {
        return;
    };
    let dir = std::env::var(DIR_ENV).expect("worker directory");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        match mode.as_str() {
            "race" => {
                let store = LocalStore::open(&dir).unwrap();
                for _ in 0..25 {
                    conformance::increment(&store, RACE_KEY)
                        .await
                        .expect("increment");
                }
            }
            "crash-writer" => crash_writer(&dir).await,
            other => panic!("unknown worker mode {other}"),
        }
    });
}

fn crash_payload(generation: u64) -> Vec<u8> {
    format!("{generation:016}")
        .repeat(CRASH_PAYLOAD_LEN / 16)
        .into_bytes()
}

/// The generation a crash-test payload holds, or `None` when it is not one whole payload.
fn crash_generation(payload: &[u8]) -> Option<u64> {
    if payload.len() != CRASH_PAYLOAD_LEN {
        return None;
    }
    let generation: u64 = std::str::from_utf8(&payload[..16]).ok()?.parse().ok()?;
    (payload == crash_payload(generation).as_slice()).then_some(generation)
}

/// Rewrites the crash keys round-robin forever, reporting each landed write on stdout, until killed. A
/// short lock timeout lets it break the lock a killed predecessor left behind.
async fn crash_writer(dir: &str) {
    let store = LocalStore::open(dir)
        .unwrap()
        .with_lock_stale_after(Duration::from_millis(50));
    for round in 0u64.. {
        let key = CRASH_KEYS[(round % 4) as usize];
        let current = store.get(key).await.unwrap().expect("seeded");
        let generation = crash_generation(&current.payload).expect("a whole payload") + 1;
        store
            .put_if_version(key, &crash_payload(generation), Some(&current.version))
            .await
            .unwrap();
        println!("committed {key} {generation}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_processes_cas_race_8_processes_x_25() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(LocalStore::open(dir.path()).unwrap());
    let mut children: Vec<Child> = (0..8).map(|_| spawn_worker("race", dir.path())).collect();
    for child in &mut children {
        let status = child.wait().unwrap();
        assert!(status.success(), "a race worker failed: {status}");
    }
    assert_eq!(
        conformance::counter_value(store.as_ref(), RACE_KEY).await,
        200
    );
    assert_eq!(
        store.list("").await.unwrap(),
        [RACE_KEY],
        "no lock or temp file is listed"
    );
}

/// A small deterministic generator for kill points (xorshift64).
struct KillPoints(u64);

impl KillPoints {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_processes_sigkill_leaves_whole_records() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalStore::open(dir.path()).unwrap();
    let mut committed: BTreeMap<&str, u64> = BTreeMap::new();
    for key in CRASH_KEYS {
        store.put_if_absent(key, &crash_payload(0)).await.unwrap();
        committed.insert(key, 0);
    }
    let mut points = KillPoints(0x5eed_1e55_c0ff_ee00);
    let mut kills_holding_a_lock = 0;
    for kill in 0..60 {
        let mut child = spawn_worker("crash-writer", dir.path());
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Let the writer land a random number of writes, then kill it wherever it is in the next one.
        let wait_for = points.next(12);
        let mut seen = 0;
        while seen < wait_for {
            let line = lines.next().expect("the writer is alive").unwrap();
            if line.starts_with("committed ") {
                seen += 1;
                record(&mut committed, &line);
            }
        }
        // Reading a report and killing at once would always hit the writer just after a write; a random
        // delay picks the instant of the kill anywhere in the read-lock-write-rename cycle. It waits for
        // nothing: the checks below hold whatever the writer was doing.
        std::thread::sleep(Duration::from_micros(points.next(20_000)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "kill {kill}: the writer ran to an end: {status}"
        );
        // Everything it reported before it died.
        for line in lines
            .map_while(Result::ok)
            .filter(|l| l.starts_with("committed "))
        {
            record(&mut committed, &line);
        }
        if leftovers(dir.path(), ".lock") > 0 {
            kills_holding_a_lock += 1;
        }

        let reader = LocalStore::open(dir.path()).unwrap();
        assert_eq!(
            reader.list("").await.unwrap(),
            sorted(&CRASH_KEYS),
            "kill {kill}: only records are listed"
        );
        let all = reader.bulk_reader().unwrap().get_all("").await.unwrap();
        assert_eq!(
            all.keys().map(String::as_str).collect::<Vec<_>>(),
            sorted(&CRASH_KEYS)
        );
        for key in CRASH_KEYS {
            let record = reader
                .get(key)
                .await
                .unwrap()
                .expect("a record survives every kill");
            assert_eq!(
                all[key], record,
                "kill {kill}: get_all agrees with get for {key}"
            );
            let generation = crash_generation(&record.payload)
                .unwrap_or_else(|| panic!("kill {kill}: {key} holds a torn payload"));
            let last = committed[key];
            assert!(
                generation == last || generation == last + 1,
                "kill {kill}: {key} holds generation {generation}, the last reported write was {last}"
            );
            // A write that landed but was not reported yet counts from now on.
            committed.insert(key, generation);
        }
    }
    // Each kill that left a lock behind was followed by a writer that had to break it to get through, so
    // the loop also shows a stale lock broken after its timeout.
    assert!(
        kills_holding_a_lock > 0,
        "no kill landed while a lock was held: the test proved nothing"
    );
    eprintln!(
        "{kills_holding_a_lock} of 60 kills left a lock behind; {} temp files remain",
        leftovers(dir.path(), ".tmp")
    );
}

/// How many files ending in `suffix` lie anywhere under `dir`.
fn leftovers(dir: &Path, suffix: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                leftovers(&path, suffix)
            } else {
                usize::from(name.ends_with(suffix))
            }
        })
        .sum()
}

fn record(committed: &mut BTreeMap<&str, u64>, line: &str) {
    let mut words = line.split(' ').skip(1);
    let (key, generation) = (
        words.next().unwrap(),
        words.next().unwrap().parse::<u64>().unwrap(),
    );
    let slot = CRASH_KEYS.iter().find(|k| **k == key).expect("a crash key");
    committed.insert(slot, generation);
}

fn sorted(keys: &[&'static str]) -> Vec<&'static str> {
    let mut keys = keys.to_vec();
    keys.sort_unstable();
    keys
}
