//! The provider protocol: the async trait a live system implements (the simulated cloud, the real AWS
//! provider, an embedder's own small cloud), the live objects it returns and the typed error it fails with.
//!
//! The required surface is small: [`Provider::region`], [`Provider::schemas`], paged [`Provider::list`],
//! [`Provider::create`], [`Provider::update`] and [`Provider::delete`]. Everything else has a default built
//! on those: reads by identity or id page through the listing, the tagging sweep lists each type in the
//! tagging index with a tag filter, and a tags-only update reads the object and updates it with its own
//! attributes. A provider with cheaper native calls (a `Get*` by name, `tagging:GetResources`,
//! `ec2:CreateTags`) overrides the defaults. The next surface (data sources, per-block configuration,
//! rate limits) has defaults that refuse or declare nothing.
//!
//! Every call receives a [`Call`]: the provider reports each API attempt to its [`Recorder`] before making
//! it, so the caller knows the call's cost; the provider keeps no count of its own. Decorators wrap a
//! provider and are providers themselves through [`Decorate`], one hook around every call: [`Counting`]
//! adds up what the provider under it reports (the engine's retrying decorator sits outside it, so every
//! attempt is counted).
//!
//! Two rules every implementation keeps: a create takes the tags in the same call, so an object never exists
//! unmarked; and every API attempt, retries included, is reported. An absent object is an answer
//! (`Ok(None)`), never an error; a failed look is an error, never an absence.
//!
//! This module defines the protocol only; it must never perform I/O itself.

mod call;
mod counting;
mod decorate;
mod error;
mod lineage;
mod live;
mod requests;
mod surface;

use std::sync::Arc;

use async_trait::async_trait;

pub use call::{Call, CallCounts, Recorder};
pub use counting::Counting;
pub use decorate::{Decorate, Method, Next};
pub use error::{ProviderError, ProviderErrorKind};
pub use lineage::Lineage;
pub use live::LiveObject;
pub use requests::{
    CreateRequest, Identity, ListPage, ListRequest, ParentScope, TagChange, TagFilter, TagQuery,
    TaggedPage, TaggedResource, UpdateRequest,
};
pub use surface::{AssumeRole, DataSourceRequest, ProviderConfig, RateLimit, RateLimits};

use crate::catalog::Catalog;
use crate::schema::AttributeMode;
use crate::value::Value;

/// A live system the engine reads and writes: object-safe, used as `Arc<dyn Provider>`.
///
/// Implement the six required methods; override the others where the system has a cheaper native call.
///
/// # Rules every implementation keeps
///
/// - **No retries inside.** Make each API attempt once and return its error; the engine retries with one
///   bounded policy (a decorator outside the provider), so a retry inside would multiply attempts and hide
///   them from the caller. An SDK's own retries are switched off.
/// - **Report every attempt** to the call's recorder ([`Call::attempt`]) by its `service:Action` name
///   before making it, a failed one included, so a plan can report its cost. Keep no count of your own:
///   the caller's recorder (a plan's, a [`Counting`] decorator's) is the count.
/// - **A failed look is never an absence.** `Ok(None)` (or an empty page) means the call answered that the
///   object is not there; anything else (a throttle, a denied call, an unreachable endpoint) is an error.
///   Discovery withholds what it could not read; reporting it absent would plan a create over it.
/// - **Tags in the create call** wherever the API allows it, so an object never exists unmarked; where it
///   does not, tag before returning from `create`, and fail the create if tagging fails.
/// - **Paging tokens are yours**: callers hand them back untouched and never parse them.
/// - **No state between calls** beyond clients and caches of immutable answers: two plans in a row must
///   each see the live system as it is, and two plans sharing one provider each get their own cost.
///
/// # Decorators
///
/// A provider that wraps another ([`Counting`], the engine's retrying decorator) implements [`Decorate`]
/// instead of this trait: it names the provider it wraps and writes one hook, [`Decorate::around`], and
/// the one impl of `Provider` for decorators forwards every method through that hook, the defaulted ones
/// included (a default left in place would answer from the wrapper's `list` and bypass the wrapped
/// provider's cheaper override). The hook hands the wrapped provider the caller's [`Call`], or one made
/// with [`Call::with_recorder`] when it records attempts itself. `&P` and `Arc<P>` are decorators whose
/// hook forwards the call as it is.
///
/// # The next surface
///
/// [`Provider::read_data_source`] is called at plan time, once per member of each data block whose type
/// the provider's catalog declares ([`Catalog::data_source`]); [`Provider::configure`] is called by the
/// engine once per region a plan or apply reaches beyond the provider's own, with a configuration
/// naming only that region (the provider for it is then used for every call in that region);
/// [`Provider::rate_limits`] is not called by the engine yet. Their defaults say "not offered": a
/// data-source read fails as [`ProviderErrorKind::Unsupported`], a configuration is accepted only when it
/// asks for nothing beyond what the provider already is, and no rate limit is declared.
#[async_trait]
pub trait Provider: Send + Sync {
    /// The region this provider reads and writes (`us-east-1`).
    fn region(&self) -> String;

    /// The live system this provider reads and writes, when it can name it: records written through it
    /// carry it, and records carrying another are refused (`record-lineage`). The default, `None`, names
    /// nothing: records are then neither stamped nor checked.
    fn lineage(&self) -> Option<Lineage> {
        None
    }

    /// The account this provider reads and writes, when it can name it without a call (the simulated
    /// cloud's snapshot account). The engine keeps it beside each region an estate writes to. The
    /// default, `None`, names none: regions are then recorded without an account.
    fn account(&self) -> Option<String> {
        None
    }

    /// The resource types this provider serves, built once (at construction, or in a static) and lent
    /// for every request: the engine and the default methods ask for it often.
    fn schemas(&self) -> &Catalog;

    /// One page of the objects of a type in the region, optionally tag-filtered or under a parent.
    async fn list(&self, call: &Call<'_>, request: ListRequest) -> Result<ListPage, ProviderError>;

    /// Creates an object with its attributes and tags in one call, and returns it as a read would, plus any
    /// value returned only by the create (an access key's `secret`).
    async fn create(
        &self,
        call: &Call<'_>,
        request: CreateRequest,
    ) -> Result<LiveObject, ProviderError>;

    /// Updates an object in place and returns it as a read would.
    async fn update(
        &self,
        call: &Call<'_>,
        request: UpdateRequest,
    ) -> Result<LiveObject, ProviderError>;

    /// Deletes an object. An object that is already gone is `NotFound`.
    async fn delete(&self, call: &Call<'_>, type_name: &str, id: &str)
    -> Result<(), ProviderError>;

    /// Deletes an object and, first, what it holds that would make the live system refuse the delete (a
    /// bucket's object versions, a role's attached and inline policies), as a destroy does when the type's
    /// `with_contents` destroy argument ([`crate::schema::DestroyArguments`]) was applied true.
    ///
    /// The default is [`Provider::delete`]: the right answer for a type whose objects hold nothing.
    async fn delete_with_contents(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        self.delete(call, type_name, id).await
    }

    /// The object of `type_name` with `identity`, or `None` when there is none.
    ///
    /// The default pages through [`Provider::list`] (under the parent named in a composite identity, for
    /// types listed by parent) and matches the schema's identity arguments.
    async fn read(
        &self,
        call: &Call<'_>,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let catalog = self.schemas();
        let arguments = catalog
            .get(type_name)
            .map(|s| s.identity.clone())
            .unwrap_or_default();
        let parent = catalog
            .get(type_name)
            .and_then(|s| s.parent.clone())
            .and_then(|link| {
                let id = match identity {
                    Identity::Composite(parts) => parts.get(&link.argument).cloned(),
                    Identity::Name(n) if arguments.first() == Some(&link.argument) => {
                        Some(n.clone())
                    }
                    Identity::Name(_) => None,
                }?;
                Some(ParentScope {
                    type_name: link.parent_type,
                    id,
                })
            });
        let mut request = ListRequest {
            parent,
            ..ListRequest::all(type_name)
        };
        loop {
            let page = self.list(call, request.clone()).await?;
            if let Some(found) = page
                .objects
                .into_iter()
                .find(|o| identity.matches(&arguments, o))
            {
                return Ok(Some(found));
            }
            match page.next_page_token {
                Some(token) => request.page_token = Some(token),
                None => return Ok(None),
            }
        }
    }

    /// The object of `type_name` with `id`, or `None` when there is none.
    ///
    /// The default pages through an unfiltered [`Provider::list`] of the type.
    async fn read_by_id(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let mut request = ListRequest::all(type_name);
        loop {
            let page = self.list(call, request.clone()).await?;
            if let Some(found) = page.objects.into_iter().find(|o| o.id == id) {
                return Ok(Some(found));
            }
            match page.next_page_token {
                Some(token) => request.page_token = Some(token),
                None => return Ok(None),
            }
        }
    }

    /// One page of the tagging API: every taggable object of the region whose tags pass the filters.
    ///
    /// The default lists, in type order, each type of [`Provider::schemas`] that is in the tagging index,
    /// with the filters; its page token is `<type name> <that type's page token>`.
    async fn tagged_resources(
        &self,
        call: &Call<'_>,
        query: TagQuery,
    ) -> Result<TaggedPage, ProviderError> {
        let catalog = self.schemas();
        let types: Vec<String> = catalog
            .iter()
            .filter(|s| s.in_tagging_index)
            .filter(|s| query.type_names.is_empty() || query.type_names.contains(&s.type_name))
            .map(|s| s.type_name.clone())
            .collect();
        let (start_type, inner_token) = match &query.page_token {
            Some(token) => match token.split_once(' ') {
                Some((t, inner)) => (
                    Some(t.to_owned()),
                    Some(inner.to_owned()).filter(|s| !s.is_empty()),
                ),
                None => (Some(token.clone()), None),
            },
            None => (None, None),
        };
        let start = match &start_type {
            Some(t) => match types.iter().position(|x| x == t) {
                Some(i) => i,
                None => {
                    return Err(ProviderError::new(
                        "tagging:GetResources",
                        ProviderErrorKind::InvalidArgument,
                        format!("bad page token {t:?}"),
                    ));
                }
            },
            None => 0,
        };
        let Some(type_name) = types.get(start) else {
            return Ok(TaggedPage::default());
        };
        let page = self
            .list(
                call,
                ListRequest {
                    type_name: type_name.clone(),
                    tag_filters: query.tag_filters.clone(),
                    parent: None,
                    page_token: inner_token,
                },
            )
            .await?;
        let resources = page
            .objects
            .into_iter()
            .filter(|o| TagFilter::all_match(&query.tag_filters, &o.tags))
            .map(|o| TaggedResource {
                type_name: o.type_name,
                id: o.id,
                tags: o.tags,
            })
            .collect();
        let next_page_token = match page.next_page_token {
            Some(inner) => Some(format!("{type_name} {inner}")),
            None => types.get(start + 1).map(|next| format!("{next} ")),
        };
        Ok(TaggedPage {
            resources,
            next_page_token,
        })
    }

    /// Sets and removes tags of an object, changing nothing else (markers, renames, adoption).
    ///
    /// The default reads the object and updates it with its own writable attributes and the tag change.
    async fn update_tags(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
        change: TagChange,
    ) -> Result<(), ProviderError> {
        let object = self
            .read_by_id(call, type_name, id)
            .await?
            .ok_or_else(|| ProviderError::not_found("update_tags", format!("{type_name} {id}")))?;
        let catalog = self.schemas();
        let writable = |name: &str| {
            catalog
                .get(type_name)
                .and_then(|s| s.attribute(name))
                .is_some_and(|a| a.mode != AttributeMode::Computed && name != "tags")
        };
        let attributes = object
            .attributes
            .into_iter()
            .filter(|(k, _)| writable(k))
            .collect();
        self.update(
            call,
            UpdateRequest {
                type_name: type_name.to_owned(),
                id: id.to_owned(),
                attributes,
                tags: change,
            },
        )
        .await?;
        Ok(())
    }

    /// Reads one data source and returns its attributes as an object value.
    ///
    /// Reports its attempts like any call and never writes. The default offers no data source: it fails
    /// as [`ProviderErrorKind::Unsupported`], naming the type.
    async fn read_data_source(
        &self,
        call: &Call<'_>,
        request: DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        let _ = call;
        Err(ProviderError::unsupported(
            "read_data_source",
            format!("no data source {}", request.type_name),
        ))
    }

    /// This provider configured as one `provider` block asks: `Ok(None)` when this provider, as it is,
    /// already serves `config`, or a new provider for it (another region, another role), sharing clients
    /// where it can. [`configured`] turns the answer into the `Arc<dyn Provider>` to use.
    ///
    /// Reports the attempts it makes (a credentials check, an `sts:AssumeRole`) like any call. The default
    /// accepts a configuration that asks for nothing beyond what the provider is (no setting, or its own
    /// region; an alias asks for nothing) and refuses anything else with
    /// [`ProviderErrorKind::UnsupportedSetting`] naming the first setting it cannot honour.
    async fn configure(
        &self,
        call: &Call<'_>,
        config: &ProviderConfig,
    ) -> Result<Option<Arc<dyn Provider>>, ProviderError> {
        let _ = call;
        match config.first_setting_beyond(&self.region()) {
            None => Ok(None),
            Some(setting) => Err(ProviderError::new(
                "configure",
                ProviderErrorKind::UnsupportedSetting {
                    setting: setting.to_owned(),
                },
                "this provider takes no configuration beyond what it was built with",
            )),
        }
    }

    /// The rate limits the live system enforces, by operation, for a caller that paces its calls. The
    /// default declares none.
    fn rate_limits(&self) -> RateLimits {
        RateLimits::none()
    }
}

/// `provider` configured as `config` asks (see [`Provider::configure`]): itself when it serves the
/// configuration as it is, else the provider its `configure` built.
pub async fn configured(
    provider: Arc<dyn Provider>,
    call: &Call<'_>,
    config: &ProviderConfig,
) -> Result<Arc<dyn Provider>, ProviderError> {
    Ok(provider.configure(call, config).await?.unwrap_or(provider))
}
