//! A provider behind a reference or an `Arc` is a provider: every method forwards, overrides included, so
//! that a decorator can wrap `&dyn Provider` or `Arc<dyn Provider>` as well as a provider it owns.
//!
//! Forwarding adds nothing: no attempt is reported here, and none is lost.

use std::sync::Arc;

use async_trait::async_trait;

use super::{
    Call, CreateRequest, DataSourceRequest, Identity, ListPage, ListRequest, LiveObject, Provider,
    ProviderConfig, ProviderError, RateLimits, TagChange, TagQuery, TaggedPage, UpdateRequest,
};
use crate::catalog::Catalog;
use crate::value::Value;

#[async_trait]
impl<P: Provider + ?Sized> Provider for &P {
    fn region(&self) -> String {
        (**self).region()
    }

    fn schemas(&self) -> &Catalog {
        (**self).schemas()
    }

    async fn list(&self, call: &Call<'_>, request: ListRequest) -> Result<ListPage, ProviderError> {
        (**self).list(call, request).await
    }

    async fn create(
        &self,
        call: &Call<'_>,
        request: CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        (**self).create(call, request).await
    }

    async fn update(
        &self,
        call: &Call<'_>,
        request: UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        (**self).update(call, request).await
    }

    async fn delete(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        (**self).delete(call, type_name, id).await
    }

    async fn read(
        &self,
        call: &Call<'_>,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        (**self).read(call, type_name, identity).await
    }

    async fn read_by_id(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        (**self).read_by_id(call, type_name, id).await
    }

    async fn tagged_resources(
        &self,
        call: &Call<'_>,
        query: TagQuery,
    ) -> Result<TaggedPage, ProviderError> {
        (**self).tagged_resources(call, query).await
    }

    async fn update_tags(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
        change: TagChange,
    ) -> Result<(), ProviderError> {
        (**self).update_tags(call, type_name, id, change).await
    }

    async fn read_data_source(
        &self,
        call: &Call<'_>,
        request: DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        (**self).read_data_source(call, request).await
    }

    async fn configure(
        &self,
        call: &Call<'_>,
        config: &ProviderConfig,
    ) -> Result<Option<Arc<dyn Provider>>, ProviderError> {
        (**self).configure(call, config).await
    }

    fn rate_limits(&self) -> RateLimits {
        (**self).rate_limits()
    }
}

#[async_trait]
impl<P: Provider + ?Sized> Provider for Arc<P> {
    fn region(&self) -> String {
        (**self).region()
    }

    fn schemas(&self) -> &Catalog {
        (**self).schemas()
    }

    async fn list(&self, call: &Call<'_>, request: ListRequest) -> Result<ListPage, ProviderError> {
        (**self).list(call, request).await
    }

    async fn create(
        &self,
        call: &Call<'_>,
        request: CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        (**self).create(call, request).await
    }

    async fn update(
        &self,
        call: &Call<'_>,
        request: UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        (**self).update(call, request).await
    }

    async fn delete(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        (**self).delete(call, type_name, id).await
    }

    async fn read(
        &self,
        call: &Call<'_>,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        (**self).read(call, type_name, identity).await
    }

    async fn read_by_id(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        (**self).read_by_id(call, type_name, id).await
    }

    async fn tagged_resources(
        &self,
        call: &Call<'_>,
        query: TagQuery,
    ) -> Result<TaggedPage, ProviderError> {
        (**self).tagged_resources(call, query).await
    }

    async fn update_tags(
        &self,
        call: &Call<'_>,
        type_name: &str,
        id: &str,
        change: TagChange,
    ) -> Result<(), ProviderError> {
        (**self).update_tags(call, type_name, id, change).await
    }

    async fn read_data_source(
        &self,
        call: &Call<'_>,
        request: DataSourceRequest,
    ) -> Result<Value, ProviderError> {
        (**self).read_data_source(call, request).await
    }

    async fn configure(
        &self,
        call: &Call<'_>,
        config: &ProviderConfig,
    ) -> Result<Option<Arc<dyn Provider>>, ProviderError> {
        (**self).configure(call, config).await
    }

    fn rate_limits(&self) -> RateLimits {
        (**self).rate_limits()
    }
}
