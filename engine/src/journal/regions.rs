//! The record of the (account, region) pairs an estate has written to (`E/regions`): written before the
//! first create in a region, so that a region later dropped from the configuration is still swept.
//!
//! Like the slot high-water mark, the record only grows, so a lost compare-and-swap is read again and
//! the union written: the write is retried a few times. This module never removes a pair.

use projection::record::{RecordBody, RegionPair, RegionsRecord};

use super::{RecordError, RecordJournal};

/// How many times the record is read again after losing its compare-and-swap to another run.
const CLAIM_ATTEMPTS: usize = 5;

impl RecordJournal {
    /// Makes the regions record hold every pair of `wanted`, against the version the plan saw; a lost
    /// compare-and-swap reads the record again and writes the union.
    pub(crate) async fn claim_regions(&self, wanted: &[RegionPair]) -> Result<(), RecordError> {
        let key = self.keys.regions();
        let _turn = self.turns.take(&key).await;
        let mut current = pairs(self.seen(&key));
        let mut attempts = 0;
        loop {
            let missing: Vec<&RegionPair> = wanted
                .iter()
                .filter(|w| !current.iter().any(|c| c.covers(w)))
                .collect();
            if missing.is_empty() {
                return Ok(());
            }
            let mut all = current.clone();
            all.extend(missing.into_iter().cloned());
            all.sort();
            all.dedup();
            let body = RecordBody::Regions(RegionsRecord { pairs: all });
            let payload = self.payload(&key, "regions", &body);
            match self.put_payload_now(&key, &payload).await {
                Ok(_) => return Ok(()),
                Err(e) if e.error.is_conflict() && attempts + 1 < CLAIM_ATTEMPTS => {
                    attempts += 1;
                    current = pairs(self.read_now(&key).await?.as_ref());
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// The pairs a regions record holds (none: no record, or one this version cannot read).
fn pairs(body: Option<&RecordBody>) -> Vec<RegionPair> {
    match body {
        Some(RecordBody::Regions(r)) => r.pairs.clone(),
        _ => Vec::new(),
    }
}
