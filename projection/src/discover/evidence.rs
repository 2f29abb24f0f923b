//! The evidence of one plan: what the first stage listed and swept, the children the listings carried
//! inline and the records, indexed for the lookups binding makes.
//!
//! Evidence is what the live system and the store said, never a verdict about it. Classification takes
//! the listed objects it sorts into claims (see [`super::classify`]); after that nothing changes the
//! evidence, so every admission path reads the same answers. Nothing here calls the provider.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use admission::InstanceAddress;
use provider::{Identity, LiveObject, ProviderError, TaggedResource};

use super::diagnostics::Unread;
use super::fetch::Bulk;
use super::scope::Scope;
use crate::record::RecordSet;

/// A live object's key: its type and its id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ObjectKey {
    /// The resource type.
    pub(crate) type_name: String,
    /// The object's id.
    pub(crate) id: String,
}

impl ObjectKey {
    /// The key of the object `id` of `type_name`.
    pub(crate) fn new(type_name: &str, id: &str) -> ObjectKey {
        ObjectKey {
            type_name: type_name.to_owned(),
            id: id.to_owned(),
        }
    }

    /// The key of `object`.
    pub(crate) fn of(object: &LiveObject) -> ObjectKey {
        ObjectKey::new(&object.type_name, &object.id)
    }
}

impl fmt::Display for ObjectKey {
    /// `TYPE ID`, as the diagnostics name an object.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.type_name, self.id)
    }
}

/// Where a live object is found without its id: its type and its identity (a client-assigned name, or
/// the components of a parent-derived identity).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct IdentityKey {
    /// The resource type.
    pub(crate) type_name: String,
    /// The object's identity.
    pub(crate) identity: Identity,
}

impl IdentityKey {
    /// The key of the object of `type_name` at `identity`.
    pub(crate) fn new(type_name: &str, identity: Identity) -> IdentityKey {
        IdentityKey {
            type_name: type_name.to_owned(),
            identity,
        }
    }
}

/// The whole listing of one type, page after page.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// The listed objects, in the order of the pages.
    pub(crate) objects: Vec<LiveObject>,
    /// Whether the listing carries each object's tags.
    pub(crate) tags_included: bool,
    /// Position of each object by id and by its client-named identity value.
    pub(crate) index: HashMap<String, usize>,
}

impl Listing {
    /// Indexes the objects by id and, for a client-named type, by the value of `identity_argument`.
    pub(crate) fn build_index(&mut self, identity_argument: Option<&str>) {
        self.index.clear();
        for (i, o) in self.objects.iter().enumerate() {
            if let Some(v) = identity_argument.and_then(|arg| o.attribute_str(arg)) {
                self.index.entry(v.to_owned()).or_insert(i);
            }
            self.index.insert(o.id.clone(), i);
        }
    }

    /// The object indexed under `id_or_identity`.
    pub(crate) fn get(&self, id_or_identity: &str) -> Option<&LiveObject> {
        self.index.get(id_or_identity).map(|&i| &self.objects[i])
    }

    /// The object the listing shows at the client-named identity `name`: the one whose id, or whose
    /// identity `argument`, is `name`.
    pub(crate) fn find_named(&self, argument: Option<&str>, name: &str) -> Option<&LiveObject> {
        self.get(name)
            .filter(|o| o.id == name || argument.is_some_and(|a| o.attribute_str(a) == Some(name)))
    }
}

/// What the first stage and the store trip said, indexed.
pub(crate) struct Evidence {
    /// The bulk listings that answered, by type.
    pub(crate) listings: BTreeMap<String, Listing>,
    /// The types whose bulk listing failed.
    pub(crate) failed_types: BTreeSet<String>,
    /// The tagging sweep's hits, unless it failed.
    pub(crate) sweep: Option<Vec<TaggedResource>>,
    sweep_index: HashMap<ObjectKey, usize>,
    /// The children the listings carried inline, sorted by key.
    children: Vec<LiveObject>,
    /// Inline children by type and identity (the components their schema names).
    children_index: HashMap<IdentityKey, usize>,
    children_by_id: HashMap<ObjectKey, usize>,
    /// The records of the estate.
    pub(crate) records: RecordSet,
    deposed_index: HashMap<ObjectKey, InstanceAddress>,
    located_index: HashMap<ObjectKey, InstanceAddress>,
}

impl Evidence {
    /// The evidence of the first stage's answers and the records, with the calls that failed (sorted
    /// by what they would have read, as named in the diagnostics).
    pub(crate) fn new(
        scope: &Scope<'_>,
        bulk: Bulk,
        records: RecordSet,
    ) -> (Evidence, Vec<(Unread, ProviderError)>) {
        let mut evidence = Evidence {
            listings: BTreeMap::new(),
            failed_types: BTreeSet::new(),
            sweep: None,
            sweep_index: HashMap::new(),
            children: Vec::new(),
            children_index: HashMap::new(),
            children_by_id: HashMap::new(),
            records,
            deposed_index: HashMap::new(),
            located_index: HashMap::new(),
        };
        let mut failures = Vec::new();
        match bulk.sweep {
            Some(Ok(hits)) => evidence.sweep = Some(hits),
            Some(Err(e)) => failures.push((Unread::TaggingIndex, e)),
            None => {}
        }
        for (t, result) in bulk.listed {
            match result {
                Ok((listing, children)) => {
                    evidence.children.extend(children);
                    evidence.listings.insert(t, listing);
                }
                Err(e) => {
                    evidence.failed_types.insert(t.clone());
                    failures.push((Unread::Listing(t), e));
                }
            }
        }
        failures.sort_by_cached_key(|(what, _)| what.to_string());
        evidence.index_children(scope);
        evidence.index_sweep();
        evidence.index_records();
        (evidence, failures)
    }

    fn index_children(&mut self, scope: &Scope<'_>) {
        self.children.sort_by_key(ObjectKey::of);
        for (i, child) in self.children.iter().enumerate() {
            self.children_by_id.insert(ObjectKey::of(child), i);
            if let Some(key) = child_key(scope, child) {
                self.children_index.entry(key).or_insert(i);
            }
        }
    }

    fn index_sweep(&mut self) {
        if let Some(hits) = &self.sweep {
            for (i, hit) in hits.iter().enumerate() {
                self.sweep_index
                    .insert(ObjectKey::new(&hit.type_name, &hit.id), i);
            }
        }
    }

    /// The records' objects by (type, id).
    fn index_records(&mut self) {
        for (address, record) in &self.records.deposed {
            for id in &record.body.ids {
                self.deposed_index
                    .insert(ObjectKey::new(address.type_name(), id), address.clone());
            }
        }
        for (address, record) in &self.records.located {
            self.located_index.insert(
                ObjectKey::new(address.type_name(), &record.body.id),
                address.clone(),
            );
        }
    }

    /// Whether the bulk listing of `type_name` answered with its objects' tags.
    pub(crate) fn listed_with_tags(&self, type_name: &str) -> bool {
        self.listings
            .get(type_name)
            .is_some_and(|l| l.tags_included)
    }

    /// The tags the sweep shows on the object `id` of `type_name`.
    pub(crate) fn sweep_tags(
        &self,
        type_name: &str,
        id: &str,
    ) -> Option<&BTreeMap<String, String>> {
        let i = self.sweep_index.get(&ObjectKey::new(type_name, id))?;
        self.sweep.as_ref()?.get(*i).map(|r| &r.tags)
    }

    /// The inline child of `type_name` with `identity`, from the parents' listings.
    pub(crate) fn inline_child(
        &self,
        type_name: &str,
        arguments: &[String],
        identity: &Identity,
    ) -> Option<LiveObject> {
        let Identity::Composite(parts) = identity else {
            return None;
        };
        let named: Option<BTreeMap<String, String>> = arguments
            .iter()
            .map(|a| Some((a.clone(), parts.get(a)?.clone())))
            .collect();
        let key = IdentityKey::new(type_name, Identity::Composite(named?));
        let i = self.children_index.get(&key)?;
        self.children
            .get(*i)
            .filter(|c| identity.matches(arguments, c))
            .cloned()
    }

    /// The inline child with `key`, from the parents' listings.
    pub(crate) fn inline_child_by_id(&self, key: &ObjectKey) -> Option<&LiveObject> {
        self.children_by_id.get(key).map(|&i| &self.children[i])
    }

    /// The instance whose deposed record names the object `id` of `type_name`.
    pub(crate) fn deposed_address(&self, type_name: &str, id: &str) -> Option<InstanceAddress> {
        if self.deposed_index.is_empty() {
            return None;
        }
        self.deposed_index
            .get(&ObjectKey::new(type_name, id))
            .cloned()
    }

    /// The instance whose located record names `object`.
    pub(crate) fn located_owner(&self, object: &LiveObject) -> Option<InstanceAddress> {
        self.located_index.get(&ObjectKey::of(object)).cloned()
    }
}

/// The identity of a live child: the components its schema names.
fn child_key(scope: &Scope<'_>, object: &LiveObject) -> Option<IdentityKey> {
    let schema = scope.catalog.get(&object.type_name)?;
    let parts: Option<BTreeMap<String, String>> = schema
        .identity
        .iter()
        .map(|arg| Some((arg.clone(), object.attribute_str(arg)?.to_owned())))
        .collect();
    Some(IdentityKey::new(
        &object.type_name,
        Identity::Composite(parts?),
    ))
}
