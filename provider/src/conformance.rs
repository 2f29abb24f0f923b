//! A conformance check every [`Provider`] can run against itself: one object's whole life through the
//! protocol (create with tags, reads by id and identity, paged and tag-filtered listings, the tagging sweep,
//! a tags-only update, delete), asserting what the engine relies on.
//!
//! The simulated cloud, the AWS provider against a local emulator and an embedder's own provider each call
//! [`check_object_lifecycle`] from one test with a sample object of a type they serve; a broken rule comes
//! back as a [`Violation`] naming it. Every call the checks make gets a recorder of its own, so a check
//! also sees what each call reported ([`check_reports_attempts`]). The check writes only the sample object (and deletes it at the end);
//! it must never touch any other object of the live system.

use std::collections::{BTreeMap, BTreeSet};

use crate::value::Value;
use crate::{
    Call, CallCounts, CreateRequest, Identity, ListRequest, LiveObject, ParentScope, Provider,
    ProviderErrorKind, TagChange, TagFilter, TagQuery,
};

/// The tag the check puts on its sample object, so that filtered listings find exactly that object.
pub const SAMPLE_TAG: &str = "liveplan-conformance";

/// The most pages the check follows before it calls a listing endless.
const MAX_PAGES: usize = 10_000;

/// The object the check creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Its type, one the provider serves.
    pub type_name: String,
    /// The attributes to create it with.
    pub attributes: BTreeMap<String, Value>,
    /// Its identity, for a type read by identity (client-named, parent-derived).
    pub identity: Option<Identity>,
    /// A value for [`SAMPLE_TAG`] that no other object carries.
    pub marker: String,
}

/// A broken protocol rule: which one, and what the provider did instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{rule}: {detail}")]
pub struct Violation {
    /// The rule, in a few words.
    pub rule: &'static str,
    /// What happened.
    pub detail: String,
}

fn violation(rule: &'static str, detail: impl Into<String>) -> Violation {
    Violation {
        rule,
        detail: detail.into(),
    }
}

/// Whether `operation` is shaped `service:Action`: a service of lowercase letters, digits and hyphens,
/// a colon, and an action that starts with a capital letter and holds letters and digits only.
fn is_operation_name(operation: &str) -> bool {
    let Some((service, action)) = operation.split_once(':') else {
        return false;
    };
    !service.is_empty()
        && service
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && action.starts_with(|c: char| c.is_ascii_uppercase())
        && action.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Checks what one call reported to its recorder: at least one attempt, each named `service:Action`.
fn reported(counts: &CallCounts, what: &str) -> Result<(), Violation> {
    let attempts = counts.snapshot();
    if attempts.is_empty() {
        return Err(violation(
            "every call reports its attempts",
            format!("{what} reported no attempt"),
        ));
    }
    match attempts.keys().find(|op| !is_operation_name(op)) {
        Some(op) => Err(violation(
            "attempts are named service:Action",
            format!("{what} reported {op:?}"),
        )),
        None => Ok(()),
    }
}

/// Runs one object's life through `provider` and checks every rule on the way, one named check after the
/// other: [`check_create`], [`check_reads`], [`check_listing`], [`check_tag_filters`],
/// [`check_tags_only_update`], [`check_delete`] and [`check_reports_attempts`]. The object is deleted at the
/// end when the check gets that far.
pub async fn check_object_lifecycle(
    provider: &dyn Provider,
    sample: &Sample,
) -> Result<(), Violation> {
    let subject = check_create(provider, sample).await?;
    check_reads(provider, &subject).await?;
    check_listing(provider, &subject).await?;
    if subject.taggable {
        check_tag_filters(provider, &subject).await?;
        check_tags_only_update(provider, &subject).await?;
    }
    check_delete(provider, &subject).await?;
    check_reports_attempts(provider, &subject).await
}

/// The sample object once created, with what the later checks compare against.
#[derive(Debug, Clone)]
pub struct Subject {
    /// The sample the object was created from.
    pub sample: Sample,
    /// The create call's answer.
    pub created: LiveObject,
    /// The object as the first read by id returned it.
    pub read: LiveObject,
    /// The tags it was created with (empty for a type without tags).
    pub tags: BTreeMap<String, String>,
    /// Whether the type carries tags.
    pub taggable: bool,
    /// Whether the type is in the tagging index.
    pub in_tagging_index: bool,
    /// Whether the type is client-named (a second create of the same name must be refused).
    pub client_named: bool,
    /// The parent a listing of the type is scoped to, for a child type.
    pub parent: Option<ParentScope>,
}

/// Creates the sample with its tags and checks the answer: the type is served, the object comes back with
/// its id and with the tags set in the same call, and the call reports its attempts. Then reads it by id.
pub async fn check_create(provider: &dyn Provider, sample: &Sample) -> Result<Subject, Violation> {
    let catalog = provider.schemas();
    let schema = catalog.get(&sample.type_name).ok_or_else(|| {
        violation(
            "schemas list the type",
            format!("{} is not served", sample.type_name),
        )
    })?;
    let taggable = schema.taggable;
    let tags: BTreeMap<String, String> = if taggable {
        [
            (SAMPLE_TAG.to_owned(), sample.marker.clone()),
            ("team".to_owned(), "a".to_owned()),
        ]
        .into()
    } else {
        BTreeMap::new()
    };
    let counts = CallCounts::new();
    let created = provider
        .create(&Call::new(&counts), create_request(sample, &tags))
        .await
        .map_err(|e| violation("create succeeds", e.to_string()))?;
    if created.type_name != sample.type_name || created.id.is_empty() {
        return Err(violation(
            "create returns the object",
            format!("{} {:?}", created.type_name, created.id),
        ));
    }
    if taggable && created.tags != tags {
        return Err(violation(
            "create sets the tags in the same call",
            format!("{:?}", created.tags),
        ));
    }
    reported(&counts, "the create")?;
    let read = read_by_id(
        provider,
        &sample.type_name,
        &created.id,
        "read by id finds the new object",
    )
    .await?;
    let parent = schema.parent.as_ref().and_then(|link| {
        let id = sample.attributes.get(&link.argument)?.as_str()?.to_owned();
        Some(ParentScope {
            type_name: link.parent_type.clone(),
            id,
        })
    });
    Ok(Subject {
        sample: sample.clone(),
        created,
        read,
        tags,
        taggable,
        in_tagging_index: schema.in_tagging_index,
        client_named: schema.admission == Some(crate::AdmissionPath::ClientNamed),
        parent,
    })
}

fn create_request(sample: &Sample, tags: &BTreeMap<String, String>) -> CreateRequest {
    CreateRequest {
        type_name: sample.type_name.clone(),
        attributes: sample.attributes.clone(),
        tags: tags.clone(),
    }
}

/// Reads return the tags; a read by identity finds the object; a client-named type refuses a second create
/// of the same name as already existing.
pub async fn check_reads(provider: &dyn Provider, subject: &Subject) -> Result<(), Violation> {
    let sample = &subject.sample;
    if subject.taggable && subject.read.tags != subject.tags {
        return Err(violation(
            "reads return the tags",
            format!("{:?}", subject.read.tags),
        ));
    }
    let Some(identity) = &sample.identity else {
        return Ok(());
    };
    let found = provider
        .read(&Call::unrecorded(), &sample.type_name, identity)
        .await
        .map_err(|e| violation("read by identity succeeds", e.to_string()))?;
    if found.as_ref().map(|o| o.id.as_str()) != Some(subject.created.id.as_str()) {
        return Err(violation(
            "read by identity finds the new object",
            format!("{found:?}"),
        ));
    }
    if subject.client_named {
        match provider
            .create(&Call::unrecorded(), create_request(sample, &subject.tags))
            .await
        {
            Err(e) if e.kind == ProviderErrorKind::AlreadyExists => {}
            other => {
                return Err(violation(
                    "a taken name is refused as already exists",
                    format!("{other:?}"),
                ));
            }
        }
    }
    Ok(())
}

/// A listing of the type (in its parent's scope, for a child type) shows the object exactly once.
pub async fn check_listing(provider: &dyn Provider, subject: &Subject) -> Result<(), Violation> {
    let all = list_all(
        provider,
        ListRequest {
            parent: subject.parent.clone(),
            ..ListRequest::all(&subject.sample.type_name)
        },
    )
    .await?;
    let copies = all.iter().filter(|o| o.id == subject.created.id).count();
    if copies != 1 {
        return Err(violation(
            "a listing shows each object once",
            format!("{copies} copies of {}", subject.created.id),
        ));
    }
    Ok(())
}

/// A tag-filtered listing returns exactly the matching objects, and the tagging sweep finds the object when
/// its type is in the tagging index.
pub async fn check_tag_filters(
    provider: &dyn Provider,
    subject: &Subject,
) -> Result<(), Violation> {
    let sample = &subject.sample;
    let filter = vec![TagFilter::equals(SAMPLE_TAG, sample.marker.clone())];
    let filtered = list_all_with_tags(
        provider,
        ListRequest {
            tag_filters: filter.clone(),
            parent: subject.parent.clone(),
            ..ListRequest::all(&sample.type_name)
        },
    )
    .await?;
    if let Some(tagged) = filtered {
        let ids: Vec<&str> = tagged.iter().map(|o| o.id.as_str()).collect();
        if ids != [subject.created.id.as_str()] {
            return Err(violation(
                "a tag-filtered listing returns exactly the matching objects",
                format!("{ids:?}"),
            ));
        }
    }
    if subject.in_tagging_index {
        let swept = sweep(provider, filter).await?;
        if !swept.contains(&(sample.type_name.clone(), subject.created.id.clone())) {
            return Err(violation(
                "the tagging sweep finds the new object",
                format!("{swept:?}"),
            ));
        }
    }
    Ok(())
}

/// A tags-only update sets and removes exactly the keys given and changes nothing else.
pub async fn check_tags_only_update(
    provider: &dyn Provider,
    subject: &Subject,
) -> Result<(), Violation> {
    let type_name = &subject.sample.type_name;
    let change = TagChange {
        set: [("team".to_owned(), "b".to_owned())].into(),
        remove: [SAMPLE_TAG.to_owned()].into(),
    };
    provider
        .update_tags(&Call::unrecorded(), type_name, &subject.created.id, change)
        .await
        .map_err(|e| violation("a tags-only update succeeds", e.to_string()))?;
    let retagged = read_by_id(
        provider,
        type_name,
        &subject.created.id,
        "the object survives a tags-only update",
    )
    .await?;
    let want: BTreeMap<String, String> = [("team".to_owned(), "b".to_owned())].into();
    if retagged.tags != want {
        return Err(violation(
            "a tags-only update sets and removes exactly the keys given",
            format!("{:?}", retagged.tags),
        ));
    }
    if retagged.attributes != subject.read.attributes {
        return Err(violation(
            "a tags-only update changes nothing else",
            format!(
                "{:?} became {:?}",
                subject.read.attributes, retagged.attributes
            ),
        ));
    }
    Ok(())
}

/// The object deletes, then reads as absent, and a second delete is not found.
pub async fn check_delete(provider: &dyn Provider, subject: &Subject) -> Result<(), Violation> {
    let (type_name, id) = (&subject.sample.type_name, &subject.created.id);
    provider
        .delete(&Call::unrecorded(), type_name, id)
        .await
        .map_err(|e| violation("delete succeeds", e.to_string()))?;
    match provider
        .read_by_id(&Call::unrecorded(), type_name, id)
        .await
    {
        Ok(None) => {}
        other => {
            return Err(violation(
                "a deleted object reads as absent",
                format!("{other:?}"),
            ));
        }
    }
    match provider.delete(&Call::unrecorded(), type_name, id).await {
        Err(e) if e.is_not_found() => Ok(()),
        other => Err(violation(
            "deleting a deleted object is not found",
            format!("{other:?}"),
        )),
    }
}

/// Every call reports its attempts to the call's recorder, named `service:Action`, a failed call too:
/// after [`check_delete`], a listing of the type, a read of the deleted object (an answer of absence)
/// and a second delete (a failure) each report at least one attempt. A provider that keeps its own count
/// instead, or reports only successes, fails here.
pub async fn check_reports_attempts(
    provider: &dyn Provider,
    subject: &Subject,
) -> Result<(), Violation> {
    let (type_name, id) = (&subject.sample.type_name, &subject.created.id);
    let counts = CallCounts::new();
    let request = ListRequest {
        parent: subject.parent.clone(),
        ..ListRequest::all(type_name)
    };
    provider
        .list(&Call::new(&counts), request)
        .await
        .map_err(|e| violation("a listing succeeds", e.to_string()))?;
    reported(&counts, "a listing")?;
    let counts = CallCounts::new();
    provider
        .read_by_id(&Call::new(&counts), type_name, id)
        .await
        .map_err(|e| violation("a read of an absent object succeeds", e.to_string()))?;
    reported(&counts, "a read of an absent object")?;
    let counts = CallCounts::new();
    if provider
        .delete(&Call::new(&counts), type_name, id)
        .await
        .is_ok()
    {
        return Err(violation(
            "deleting a deleted object is not found",
            "the second delete succeeded",
        ));
    }
    reported(&counts, "a failed delete")
}

async fn read_by_id(
    provider: &dyn Provider,
    type_name: &str,
    id: &str,
    rule: &'static str,
) -> Result<LiveObject, Violation> {
    match provider
        .read_by_id(&Call::unrecorded(), type_name, id)
        .await
    {
        Ok(Some(o)) if o.id == id => Ok(o),
        other => Err(violation(rule, format!("{other:?}"))),
    }
}

async fn list_all(
    provider: &dyn Provider,
    request: ListRequest,
) -> Result<Vec<LiveObject>, Violation> {
    Ok(list_pages(provider, request).await?.0)
}

/// The filtered listing, or `None` when the API lists without tags (the caller filters after reading them).
async fn list_all_with_tags(
    provider: &dyn Provider,
    request: ListRequest,
) -> Result<Option<Vec<LiveObject>>, Violation> {
    let (objects, tags_included) = list_pages(provider, request).await?;
    Ok(tags_included.then_some(objects))
}

async fn list_pages(
    provider: &dyn Provider,
    mut request: ListRequest,
) -> Result<(Vec<LiveObject>, bool), Violation> {
    let mut objects = Vec::new();
    let mut tags_included = true;
    for _ in 0..MAX_PAGES {
        let page = provider
            .list(&Call::unrecorded(), request.clone())
            .await
            .map_err(|e| violation("a listing succeeds", e.to_string()))?;
        tags_included &= page.tags_included;
        objects.extend(page.objects);
        match page.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => return Ok((objects, tags_included)),
        }
    }
    Err(violation(
        "a listing ends",
        format!("over {MAX_PAGES} pages"),
    ))
}

async fn sweep(
    provider: &dyn Provider,
    tag_filters: Vec<TagFilter>,
) -> Result<BTreeSet<(String, String)>, Violation> {
    let mut found = BTreeSet::new();
    let mut query = TagQuery {
        tag_filters,
        ..TagQuery::default()
    };
    for _ in 0..MAX_PAGES {
        let page = provider
            .tagged_resources(&Call::unrecorded(), query.clone())
            .await
            .map_err(|e| violation("the tagging sweep succeeds", e.to_string()))?;
        found.extend(page.resources.into_iter().map(|r| (r.type_name, r.id)));
        match page.next_page_token {
            Some(token) => query.page_token = Some(token),
            None => return Ok(found),
        }
    }
    Err(violation(
        "the tagging sweep ends",
        format!("over {MAX_PAGES} pages"),
    ))
}
