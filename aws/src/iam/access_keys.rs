//! Access keys: list-and-match under their user (`ListAccessKeys`), created with `CreateAccessKey` (whose
//! answer carries the secret, once: it is residue, returned by the create and by no read), their status
//! changed with `UpdateAccessKey`, deleted with `DeleteAccessKey`.
//!
//! A read by id first asks which user holds the key (`GetAccessKeyLastUsed`), then lists that user's keys:
//! IAM has no call that returns one key by id. This module must never return an absence for a look that
//! failed: only IAM's `NoSuchEntity` on a read means the key (or its user) is not there.

use std::collections::BTreeMap;

use aws_sdk_iam::types::StatusType;
use provider::{
    Call, CreateRequest, Identity, ListPage, ListRequest, LiveObject, ProviderError,
    ProviderErrorKind, UpdateRequest, Value,
};

use super::super::error::from_sdk;
use super::super::{AwsProvider, IAM_ACCESS_KEY, IAM_USER, check_names, invalid, string_attribute};

const LIST_ACCESS_KEYS: &str = "iam:ListAccessKeys";
const CREATE_ACCESS_KEY: &str = "iam:CreateAccessKey";
const UPDATE_ACCESS_KEY: &str = "iam:UpdateAccessKey";
const DELETE_ACCESS_KEY: &str = "iam:DeleteAccessKey";
const GET_ACCESS_KEY_LAST_USED: &str = "iam:GetAccessKeyLastUsed";

/// One page of a user's keys and the marker of the next.
type KeyPage = (Vec<LiveObject>, Option<String>);

/// The page size asked of `ListAccessKeys` (a user holds two keys at most).
const LIST_PAGE: i32 = 100;

fn status_text(status: Option<&StatusType>) -> &str {
    match status {
        Some(StatusType::Inactive) => "Inactive",
        _ => "Active",
    }
}

/// The desired status, `Active` when none is given.
fn desired_status<'a>(
    operation: &str,
    attributes: &'a BTreeMap<String, Value>,
) -> Result<&'a str, ProviderError> {
    match attributes.get("status").map(Value::peel) {
        None | Some(Value::Null) => Ok("Active"),
        Some(Value::String(s)) if s == "Active" || s == "Inactive" => Ok(s),
        Some(other) => Err(invalid(
            operation,
            format!("{IAM_ACCESS_KEY}.status is {other}; expected Active or Inactive"),
        )),
    }
}

impl AwsProvider {
    /// An access key as a read returns it: `id`, `user` and `status`.
    fn access_key_object(&self, id: &str, user: &str, status: &str) -> LiveObject {
        LiveObject {
            type_name: IAM_ACCESS_KEY.to_owned(),
            id: id.to_owned(),
            region: self.region.clone(),
            attributes: BTreeMap::from([
                ("id".to_owned(), Value::from(id)),
                ("user".to_owned(), Value::from(user)),
                ("status".to_owned(), Value::from(status)),
            ]),
            tags: BTreeMap::new(),
        }
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    /// One page of the user's keys; `None` when the user does not exist.
    #[tracing::instrument(skip_all, fields(operation = LIST_ACCESS_KEYS, user = %user), err)]
    async fn call_list_access_keys(
        &self,
        call: &Call<'_>,
        user: &str,
        marker: Option<String>,
    ) -> Result<Option<KeyPage>, ProviderError> {
        call.attempt(LIST_ACCESS_KEYS);
        let out = match self
            .iam
            .list_access_keys()
            .user_name(user)
            .max_items(LIST_PAGE)
            .set_marker(marker)
            .send()
            .await
        {
            Ok(out) => out,
            Err(e) => {
                let err = from_sdk(LIST_ACCESS_KEYS, e);
                return match err.kind {
                    ProviderErrorKind::NotFound => Ok(None),
                    _ => Err(err),
                };
            }
        };
        let objects = out
            .access_key_metadata()
            .iter()
            .filter_map(|k| {
                let id = k.access_key_id()?;
                let owner = k.user_name().unwrap_or(user);
                Some(self.access_key_object(id, owner, status_text(k.status())))
            })
            .collect();
        let next = out
            .marker()
            .filter(|m| out.is_truncated() && !m.is_empty())
            .map(str::to_owned);
        Ok(Some((objects, next)))
    }

    /// The new key, its secret among its attributes (sensitive).
    #[tracing::instrument(skip_all, fields(operation = CREATE_ACCESS_KEY, user = %user), err)]
    async fn call_create_access_key(
        &self,
        call: &Call<'_>,
        user: &str,
    ) -> Result<LiveObject, ProviderError> {
        call.attempt(CREATE_ACCESS_KEY);
        let out = self
            .iam
            .create_access_key()
            .user_name(user)
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_ACCESS_KEY, e))?;
        let key = out.access_key().ok_or_else(|| {
            ProviderError::new(
                CREATE_ACCESS_KEY,
                ProviderErrorKind::ServerError,
                "CreateAccessKey answered without the key",
            )
        })?;
        let mut object = self.access_key_object(
            key.access_key_id(),
            key.user_name(),
            status_text(Some(key.status())),
        );
        object.attributes.insert(
            "secret".to_owned(),
            Value::from(key.secret_access_key()).sensitive(),
        );
        Ok(object)
    }

    #[tracing::instrument(skip_all, fields(operation = UPDATE_ACCESS_KEY, id = %id), err)]
    async fn call_update_access_key(
        &self,
        call: &Call<'_>,
        user: &str,
        id: &str,
        status: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(UPDATE_ACCESS_KEY);
        self.iam
            .update_access_key()
            .user_name(user)
            .access_key_id(id)
            .status(StatusType::from(status))
            .send()
            .await
            .map_err(|e| from_sdk(UPDATE_ACCESS_KEY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_ACCESS_KEY, id = %id), err)]
    async fn call_delete_access_key(
        &self,
        call: &Call<'_>,
        user: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_ACCESS_KEY);
        self.iam
            .delete_access_key()
            .user_name(user)
            .access_key_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_ACCESS_KEY, e))?;
        Ok(())
    }

    /// The user who holds the key; `None` when IAM knows no such key.
    #[tracing::instrument(skip_all, fields(operation = GET_ACCESS_KEY_LAST_USED, id = %id), err)]
    async fn call_get_access_key_last_used(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<String>, ProviderError> {
        call.attempt(GET_ACCESS_KEY_LAST_USED);
        match self
            .iam
            .get_access_key_last_used()
            .access_key_id(id)
            .send()
            .await
        {
            Ok(out) => Ok(out.user_name().map(str::to_owned)),
            Err(e) => match from_sdk(GET_ACCESS_KEY_LAST_USED, e) {
                err if err.kind == ProviderErrorKind::NotFound => Ok(None),
                err => Err(err),
            },
        }
    }

    // ----- Access keys through the protocol. -----

    /// Every key of `user`, paged to the end; `None` when the user does not exist.
    async fn user_keys(
        &self,
        call: &Call<'_>,
        user: &str,
    ) -> Result<Option<Vec<LiveObject>>, ProviderError> {
        let mut keys = Vec::new();
        let mut marker = None;
        loop {
            let Some((page, next)) = self.call_list_access_keys(call, user, marker).await? else {
                return Ok(None);
            };
            keys.extend(page);
            match next {
                Some(m) => marker = Some(m),
                None => return Ok(Some(keys)),
            }
        }
    }

    /// The user holding key `id`, and the key as it is; `None` when it is not there.
    async fn locate_key(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let Some(user) = self.call_get_access_key_last_used(call, id).await? else {
            return Ok(None);
        };
        Ok(self
            .user_keys(call, &user)
            .await?
            .and_then(|keys| keys.into_iter().find(|k| k.id == id)))
    }

    pub(in super::super) async fn list_access_keys(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let user = match &request.parent {
            Some(parent) if parent.type_name == IAM_USER => parent.id.as_str(),
            _ => {
                return Err(invalid(
                    LIST_ACCESS_KEYS,
                    format!("{IAM_ACCESS_KEY} is listed under one {IAM_USER} only"),
                ));
            }
        };
        let (objects, next_page_token) = self
            .call_list_access_keys(call, user, request.page_token.clone())
            .await?
            .unwrap_or_default();
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: false,
            next_page_token,
        })
    }

    /// The first key of the identity's user that matches it (list-and-match under the user).
    pub(in super::super) async fn read_access_key(
        &self,
        call: &Call<'_>,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let user = match identity {
            Identity::Name(user) => Some(user.as_str()),
            Identity::Composite(parts) => parts.get("user").map(String::as_str),
        };
        let Some(user) = user else {
            return Err(invalid(
                "read",
                format!("{IAM_ACCESS_KEY} is identified by its user, not by {identity}"),
            ));
        };
        let arguments = ["user".to_owned()];
        Ok(self
            .user_keys(call, user)
            .await?
            .and_then(|keys| keys.into_iter().find(|k| identity.matches(&arguments, k))))
    }

    pub(in super::super) async fn read_access_key_by_id(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        self.locate_key(call, id).await
    }

    /// Creates the key, then sets it `Inactive` when asked (IAM creates every key active); when that fails,
    /// the key is deleted again and the create fails with the status error.
    pub(in super::super) async fn create_access_key(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_ACCESS_KEY, IAM_ACCESS_KEY, attributes)?;
        if !request.tags.is_empty() {
            return Err(invalid(
                CREATE_ACCESS_KEY,
                format!("{IAM_ACCESS_KEY} carries no tags"),
            ));
        }
        let user = string_attribute(CREATE_ACCESS_KEY, IAM_ACCESS_KEY, attributes, "user")?;
        let status = desired_status(CREATE_ACCESS_KEY, attributes)?;
        let mut created =
            self.call_create_access_key(call, user)
                .await
                .map_err(|e| match e.kind {
                    ProviderErrorKind::NotFound => ProviderError::new(
                        e.operation,
                        ProviderErrorKind::InvalidReference,
                        format!("the user {user} does not exist"),
                    ),
                    _ => e,
                })?;
        if status != "Active" {
            if let Err(err) = self
                .call_update_access_key(call, user, &created.id, status)
                .await
            {
                // An active key nobody asked for must not stay behind: delete it again.
                let outcome = match self.call_delete_access_key(call, user, &created.id).await {
                    Ok(()) => "the new key was deleted again".to_owned(),
                    Err(e) => format!(
                        "the new key {} of {user} is active and could not be deleted ({e}): delete it by hand",
                        created.id
                    ),
                };
                return Err(ProviderError::new(
                    err.operation,
                    err.kind,
                    format!("{}; {outcome}", err.message),
                ));
            }
            created
                .attributes
                .insert("status".to_owned(), Value::from(status));
        }
        Ok(created)
    }

    /// Changes the key's status (`UpdateAccessKey`); the user it belongs to comes from the request.
    pub(in super::super) async fn update_access_key(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(UPDATE_ACCESS_KEY, IAM_ACCESS_KEY, attributes)?;
        if !request.tags.is_empty() {
            return Err(invalid(
                UPDATE_ACCESS_KEY,
                format!("{IAM_ACCESS_KEY} carries no tags"),
            ));
        }
        let status = desired_status(UPDATE_ACCESS_KEY, attributes)?;
        let user = match attributes.get("user").and_then(|v| v.peel().as_str()) {
            Some(user) => user.to_owned(),
            None => match self
                .call_get_access_key_last_used(call, &request.id)
                .await?
            {
                Some(user) => user,
                None => {
                    return Err(ProviderError::not_found(
                        GET_ACCESS_KEY_LAST_USED,
                        format!("the access key {} does not exist", request.id),
                    ));
                }
            },
        };
        self.call_update_access_key(call, &user, &request.id, status)
            .await?;
        Ok(self.access_key_object(&request.id, &user, status))
    }

    /// Deletes the key under the user that holds it (`GetAccessKeyLastUsed` names the user: the delete
    /// call carries the id alone).
    pub(in super::super) async fn delete_access_key(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        let Some(user) = self.call_get_access_key_last_used(call, id).await? else {
            return Err(ProviderError::not_found(
                GET_ACCESS_KEY_LAST_USED,
                format!("the access key {id} does not exist"),
            ));
        };
        self.call_delete_access_key(call, &user, id).await
    }
}
