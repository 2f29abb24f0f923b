//! The IAM side of the AWS provider: roles and users (client-named, read by name with `GetRole` and
//! `GetUser`, listed with `ListRoles` and `ListUsers`) and users' access keys (list-and-match under their
//! user, in [`access_keys`]).
//!
//! IAM is global and outside the tagging API: a role or user is found by its name (a read returns its
//! tags, `GetRole` and `GetUser` carry them), never by the sweep. Its tags are set in the create call itself
//! (`Tags` on `CreateRole` / `CreateUser`), so it never exists unmarked, and changed with `TagRole` /
//! `UntagRole` and `TagUser` / `UntagUser`. Each API operation is one private method that counts the attempt, opens a span named after
//! the operation and turns an SDK failure into a [`ProviderError`]. This module must never read an error
//! as an absence except on a read, where IAM's `NoSuchEntity` means the object is not there.

mod access_keys;
mod role_policies;

use std::collections::BTreeMap;

use aws_sdk_iam::types::{Role, Tag, User};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, ProviderErrorKind,
    TagChange, UpdateRequest, Value,
};

use super::error::from_sdk;
use super::{AwsProvider, IAM_ROLE, IAM_USER, check_names, invalid, string_attribute};
use role_policies::{DEFAULT_SESSION_DURATION, boundary, session_duration};

/// The page size asked of `ListRoles` and `ListUsers`: IAM's largest.
const LIST_PAGE: i32 = 1000;

const GET_ROLE: &str = "iam:GetRole";
const CREATE_ROLE: &str = "iam:CreateRole";
const UPDATE_ROLE: &str = "iam:UpdateRole";
const UPDATE_ASSUME_ROLE_POLICY: &str = "iam:UpdateAssumeRolePolicy";
const DELETE_ROLE: &str = "iam:DeleteRole";
const LIST_ROLES: &str = "iam:ListRoles";
const GET_USER: &str = "iam:GetUser";
const CREATE_USER: &str = "iam:CreateUser";
const UPDATE_USER: &str = "iam:UpdateUser";
const DELETE_USER: &str = "iam:DeleteUser";
const LIST_USERS: &str = "iam:ListUsers";
const TAG_ROLE: &str = "iam:TagRole";
const UNTAG_ROLE: &str = "iam:UntagRole";
const TAG_USER: &str = "iam:TagUser";
const UNTAG_USER: &str = "iam:UntagUser";

/// Whether a failure is IAM's "no such entity".
fn is_no_such_entity(err: &ProviderError) -> bool {
    err.kind == ProviderErrorKind::NotFound
}

fn iam_tags(operation: &str, tags: &BTreeMap<String, String>) -> Result<Vec<Tag>, ProviderError> {
    tags.iter()
        .map(|(k, v)| {
            Tag::builder()
                .key(k)
                .value(v)
                .build()
                .map_err(|e| invalid(operation, e.to_string()))
        })
        .collect()
}

fn tag_map(tags: &[Tag]) -> BTreeMap<String, String> {
    tags.iter()
        .map(|t| (t.key().to_owned(), t.value().to_owned()))
        .collect()
}

/// A string attribute that may be missing (`default` then).
fn optional_string<'a>(
    operation: &str,
    type_name: &str,
    attributes: &'a BTreeMap<String, Value>,
    name: &str,
    default: &'a str,
) -> Result<&'a str, ProviderError> {
    match attributes.get(name).map(Value::peel) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(invalid(
            operation,
            format!("{type_name}.{name} must be a string, not {other}"),
        )),
    }
}

/// What a new role is created with besides its name and tags.
struct RoleArguments<'a> {
    policy: &'a str,
    description: &'a str,
    path: &'a str,
    max_session_duration: i32,
    permissions_boundary: Option<&'a str>,
}

/// IAM answers policy documents URL-encoded (`%7B%22Version%22...`); a document that is plain JSON
/// already (as some emulators answer in listings) is kept as it is.
fn decoded_document(document: &str) -> String {
    if document.trim_start().starts_with('{') || !document.contains('%') {
        return document.to_owned();
    }
    let bytes = document.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                let value = hex(h).unwrap_or_default() * 16 + hex(l).unwrap_or_default();
                out.push(value as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| document.to_owned())
}

/// The name a read, update or delete names, refusing an attribute that would rename the object.
fn check_rename(
    operation: &str,
    type_name: &str,
    attributes: &BTreeMap<String, Value>,
    id: &str,
) -> Result<(), ProviderError> {
    match attributes.get("name") {
        Some(v) if v.peel().as_str() != Some(id) => Err(invalid(
            operation,
            format!(
                "{type_name} cannot be renamed in place ({id} to {v}): name forces replacement"
            ),
        )),
        _ => Ok(()),
    }
}

impl AwsProvider {
    /// A role as a read returns it: `id` and `name` (its name), `assume_role_policy`, `description`,
    /// `path`, `max_session_duration`, `permissions_boundary` and `arn`, and the tags the answer carries
    /// (`ListRoles` carries neither tags nor the permissions boundary).
    fn role_object(&self, role: &Role) -> LiveObject {
        let name = role.role_name();
        let policy = decoded_document(role.assume_role_policy_document().unwrap_or_default());
        LiveObject {
            type_name: IAM_ROLE.to_owned(),
            id: name.to_owned(),
            region: self.region.clone(),
            attributes: BTreeMap::from([
                ("id".to_owned(), Value::from(name)),
                ("name".to_owned(), Value::from(name)),
                ("assume_role_policy".to_owned(), Value::from(policy)),
                (
                    "description".to_owned(),
                    Value::from(role.description().unwrap_or_default()),
                ),
                ("path".to_owned(), Value::from(role.path())),
                (
                    "max_session_duration".to_owned(),
                    Value::from(i64::from(
                        role.max_session_duration()
                            .unwrap_or(DEFAULT_SESSION_DURATION),
                    )),
                ),
                (
                    "permissions_boundary".to_owned(),
                    role.permissions_boundary()
                        .and_then(|b| b.permissions_boundary_arn())
                        .map_or(Value::Null, Value::from),
                ),
                ("arn".to_owned(), Value::from(role.arn())),
            ]),
            tags: tag_map(role.tags()),
        }
    }

    /// A user as a read returns it: `id` and `name` (its name), `path` and `arn`, and the tags the answer
    /// carries (`ListUsers` carries none).
    fn user_object(&self, user: &User) -> LiveObject {
        let name = user.user_name();
        LiveObject {
            type_name: IAM_USER.to_owned(),
            id: name.to_owned(),
            region: self.region.clone(),
            attributes: BTreeMap::from([
                ("id".to_owned(), Value::from(name)),
                ("name".to_owned(), Value::from(name)),
                ("path".to_owned(), Value::from(user.path())),
                ("arn".to_owned(), Value::from(user.arn())),
            ]),
            tags: tag_map(user.tags()),
        }
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    /// The role; `None` when IAM has no role of that name.
    #[tracing::instrument(skip_all, fields(operation = GET_ROLE, role = %name), err)]
    async fn call_get_role(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        call.attempt(GET_ROLE);
        match self.iam.get_role().role_name(name).send().await {
            Ok(out) => Ok(out.role().map(|r| self.role_object(r))),
            Err(e) => match from_sdk(GET_ROLE, e) {
                err if is_no_such_entity(&err) => Ok(None),
                err => Err(err),
            },
        }
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_ROLE, role = %name), err)]
    async fn call_create_role(
        &self,
        call: &Call<'_>,
        name: &str,
        role: &RoleArguments<'_>,
        tags: &BTreeMap<String, String>,
    ) -> Result<LiveObject, ProviderError> {
        call.attempt(CREATE_ROLE);
        let tags = iam_tags(CREATE_ROLE, tags)?;
        let out = self
            .iam
            .create_role()
            .role_name(name)
            .assume_role_policy_document(role.policy)
            .set_description((!role.description.is_empty()).then(|| role.description.to_owned()))
            .path(role.path)
            .max_session_duration(role.max_session_duration)
            .set_permissions_boundary(role.permissions_boundary.map(str::to_owned))
            .set_tags((!tags.is_empty()).then_some(tags))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_ROLE, e))?;
        let role = out.role().ok_or_else(|| {
            ProviderError::new(
                CREATE_ROLE,
                ProviderErrorKind::ServerError,
                "CreateRole answered without the role",
            )
        })?;
        Ok(self.role_object(role))
    }

    #[tracing::instrument(skip_all, fields(operation = UPDATE_ROLE, role = %name), err)]
    async fn call_update_role(
        &self,
        call: &Call<'_>,
        name: &str,
        (description, max_session_duration): (&str, i32),
    ) -> Result<(), ProviderError> {
        call.attempt(UPDATE_ROLE);
        self.iam
            .update_role()
            .role_name(name)
            .description(description)
            .max_session_duration(max_session_duration)
            .send()
            .await
            .map_err(|e| from_sdk(UPDATE_ROLE, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = UPDATE_ASSUME_ROLE_POLICY, role = %name), err)]
    async fn call_update_assume_role_policy(
        &self,
        call: &Call<'_>,
        name: &str,
        policy: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(UPDATE_ASSUME_ROLE_POLICY);
        self.iam
            .update_assume_role_policy()
            .role_name(name)
            .policy_document(policy)
            .send()
            .await
            .map_err(|e| from_sdk(UPDATE_ASSUME_ROLE_POLICY, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_ROLE, role = %name), err)]
    async fn call_delete_role(&self, call: &Call<'_>, name: &str) -> Result<(), ProviderError> {
        call.attempt(DELETE_ROLE);
        self.iam
            .delete_role()
            .role_name(name)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_ROLE, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = LIST_ROLES), err)]
    async fn call_list_roles(
        &self,
        call: &Call<'_>,
        marker: Option<String>,
    ) -> Result<(Vec<LiveObject>, Option<String>), ProviderError> {
        call.attempt(LIST_ROLES);
        let out = self
            .iam
            .list_roles()
            .max_items(LIST_PAGE)
            .set_marker(marker)
            .send()
            .await
            .map_err(|e| from_sdk(LIST_ROLES, e))?;
        let objects = out.roles().iter().map(|r| self.role_object(r)).collect();
        let next = out
            .marker()
            .filter(|m| out.is_truncated() && !m.is_empty())
            .map(str::to_owned);
        Ok((objects, next))
    }

    /// The user; `None` when IAM has no user of that name.
    #[tracing::instrument(skip_all, fields(operation = GET_USER, user = %name), err)]
    async fn call_get_user(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        call.attempt(GET_USER);
        match self.iam.get_user().user_name(name).send().await {
            Ok(out) => Ok(out.user().map(|u| self.user_object(u))),
            Err(e) => match from_sdk(GET_USER, e) {
                err if is_no_such_entity(&err) => Ok(None),
                err => Err(err),
            },
        }
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_USER, user = %name), err)]
    async fn call_create_user(
        &self,
        call: &Call<'_>,
        name: &str,
        path: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<LiveObject, ProviderError> {
        call.attempt(CREATE_USER);
        let tags = iam_tags(CREATE_USER, tags)?;
        let out = self
            .iam
            .create_user()
            .user_name(name)
            .path(path)
            .set_tags((!tags.is_empty()).then_some(tags))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_USER, e))?;
        let user = out.user().ok_or_else(|| {
            ProviderError::new(
                CREATE_USER,
                ProviderErrorKind::ServerError,
                "CreateUser answered without the user",
            )
        })?;
        Ok(self.user_object(user))
    }

    #[tracing::instrument(skip_all, fields(operation = UPDATE_USER, user = %name), err)]
    async fn call_update_user(
        &self,
        call: &Call<'_>,
        name: &str,
        path: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(UPDATE_USER);
        self.iam
            .update_user()
            .user_name(name)
            .new_path(path)
            .send()
            .await
            .map_err(|e| from_sdk(UPDATE_USER, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_USER, user = %name), err)]
    async fn call_delete_user(&self, call: &Call<'_>, name: &str) -> Result<(), ProviderError> {
        call.attempt(DELETE_USER);
        self.iam
            .delete_user()
            .user_name(name)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_USER, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = LIST_USERS), err)]
    async fn call_list_users(
        &self,
        call: &Call<'_>,
        marker: Option<String>,
    ) -> Result<(Vec<LiveObject>, Option<String>), ProviderError> {
        call.attempt(LIST_USERS);
        let out = self
            .iam
            .list_users()
            .max_items(LIST_PAGE)
            .set_marker(marker)
            .send()
            .await
            .map_err(|e| from_sdk(LIST_USERS, e))?;
        let objects = out.users().iter().map(|u| self.user_object(u)).collect();
        let next = out
            .marker()
            .filter(|m| out.is_truncated() && !m.is_empty())
            .map(str::to_owned);
        Ok((objects, next))
    }

    /// `TagRole` or `TagUser`: sets the keys given, keeps the others.
    #[tracing::instrument(skip_all, fields(type_name = %type_name, name = %name), err)]
    async fn call_tag(
        &self,
        call: &Call<'_>,
        type_name: &str,
        name: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), ProviderError> {
        let operation = if type_name == IAM_ROLE {
            TAG_ROLE
        } else {
            TAG_USER
        };
        call.attempt(operation);
        let tags = iam_tags(operation, tags)?;
        if type_name == IAM_ROLE {
            self.iam
                .tag_role()
                .role_name(name)
                .set_tags(Some(tags))
                .send()
                .await
                .map(drop)
                .map_err(|e| from_sdk(operation, e))
        } else {
            self.iam
                .tag_user()
                .user_name(name)
                .set_tags(Some(tags))
                .send()
                .await
                .map(drop)
                .map_err(|e| from_sdk(operation, e))
        }
    }

    /// `UntagRole` or `UntagUser`: removes the keys given.
    #[tracing::instrument(skip_all, fields(type_name = %type_name, name = %name), err)]
    async fn call_untag(
        &self,
        call: &Call<'_>,
        type_name: &str,
        name: &str,
        keys: Vec<String>,
    ) -> Result<(), ProviderError> {
        let operation = if type_name == IAM_ROLE {
            UNTAG_ROLE
        } else {
            UNTAG_USER
        };
        call.attempt(operation);
        if type_name == IAM_ROLE {
            self.iam
                .untag_role()
                .role_name(name)
                .set_tag_keys(Some(keys))
                .send()
                .await
                .map(drop)
                .map_err(|e| from_sdk(operation, e))
        } else {
            self.iam
                .untag_user()
                .user_name(name)
                .set_tag_keys(Some(keys))
                .send()
                .await
                .map(drop)
                .map_err(|e| from_sdk(operation, e))
        }
    }

    // ----- Roles and users through the protocol. -----

    pub(super) async fn list_iam(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let operation = if request.type_name == IAM_ROLE {
            LIST_ROLES
        } else {
            LIST_USERS
        };
        if let Some(parent) = &request.parent {
            return Err(invalid(
                operation,
                format!(
                    "{} is not listed under a {}",
                    request.type_name, parent.type_name
                ),
            ));
        }
        let marker = request.page_token.clone();
        let (objects, next_page_token) = if request.type_name == IAM_ROLE {
            self.call_list_roles(call, marker).await?
        } else {
            self.call_list_users(call, marker).await?
        };
        // The listings cannot filter by tags: the page says so, and the caller filters.
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: false,
            next_page_token,
        })
    }

    pub(super) async fn read_role(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        self.call_get_role(call, name).await
    }

    pub(super) async fn read_user(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        self.call_get_user(call, name).await
    }

    pub(super) async fn create_role(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_ROLE, IAM_ROLE, attributes)?;
        let name = string_attribute(CREATE_ROLE, IAM_ROLE, attributes, "name")?;
        let role = RoleArguments {
            policy: string_attribute(CREATE_ROLE, IAM_ROLE, attributes, "assume_role_policy")?,
            description: optional_string(CREATE_ROLE, IAM_ROLE, attributes, "description", "")?,
            path: optional_string(CREATE_ROLE, IAM_ROLE, attributes, "path", "/")?,
            max_session_duration: session_duration(CREATE_ROLE, attributes)?
                .unwrap_or(DEFAULT_SESSION_DURATION),
            permissions_boundary: boundary(CREATE_ROLE, attributes)?.flatten(),
        };
        self.call_create_role(call, name, &role, &request.tags)
            .await
    }

    /// Changes what differs from the role as it is now: the description (`UpdateRole`) and the trust
    /// policy (`UpdateAssumeRolePolicy`), after one `GetRole`.
    pub(super) async fn update_role(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(UPDATE_ROLE, IAM_ROLE, attributes)?;
        check_rename(UPDATE_ROLE, IAM_ROLE, attributes, &request.id)?;
        let name = request.id.as_str();
        let Some(mut current) = self.call_get_role(call, name).await? else {
            return Err(ProviderError::not_found(
                GET_ROLE,
                format!("the role {name} does not exist"),
            ));
        };
        self.update_role_settings(call, &mut current, attributes)
            .await?;
        if let Some(policy) = attributes.get("assume_role_policy").map(Value::peel) {
            let policy = policy.as_str().ok_or_else(|| {
                invalid(
                    UPDATE_ASSUME_ROLE_POLICY,
                    format!("{IAM_ROLE}.assume_role_policy must be a string, not {policy}"),
                )
            })?;
            if current.attribute_str("assume_role_policy") != Some(policy) {
                self.call_update_assume_role_policy(call, name, policy)
                    .await?;
                current
                    .attributes
                    .insert("assume_role_policy".to_owned(), Value::from(policy));
            }
        }
        self.change_iam_tags(call, IAM_ROLE, name, &request.tags)
            .await?;
        current.tags = request.tags.applied_to(&current.tags);
        Ok(current)
    }

    /// Changes the description and maximum session duration (one `UpdateRole`, which is given both:
    /// some emulators reset what it is not given) and the permissions boundary, where the request sets
    /// them and they differ from `current`, which is updated to match.
    async fn update_role_settings(
        &self,
        call: &Call<'_>,
        current: &mut LiveObject,
        attributes: &BTreeMap<String, Value>,
    ) -> Result<(), ProviderError> {
        let name = current.id.clone();
        let have_description = current
            .attribute_str("description")
            .unwrap_or_default()
            .to_owned();
        let have_duration = current
            .attribute("max_session_duration")
            .and_then(|v| v.peel().as_number())
            .and_then(|n| n.as_i64())
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(DEFAULT_SESSION_DURATION);
        let description = match attributes.get("description") {
            Some(_) => optional_string(UPDATE_ROLE, IAM_ROLE, attributes, "description", "")?,
            None => have_description.as_str(),
        };
        let duration = session_duration(UPDATE_ROLE, attributes)?.unwrap_or(have_duration);
        if description != have_description || duration != have_duration {
            self.call_update_role(call, &name, (description, duration))
                .await?;
            let attrs = &mut current.attributes;
            attrs.insert("description".to_owned(), Value::from(description));
            attrs.insert(
                "max_session_duration".to_owned(),
                Value::from(i64::from(duration)),
            );
        }
        if let Some(arn) = boundary(UPDATE_ROLE, attributes)?
            && current.attribute_str("permissions_boundary") != arn
        {
            self.set_permissions_boundary(call, &name, arn).await?;
            current.attributes.insert(
                "permissions_boundary".to_owned(),
                arn.map_or(Value::Null, Value::from),
            );
        }
        Ok(())
    }

    pub(super) async fn delete_role(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<(), ProviderError> {
        self.call_delete_role(call, name).await
    }

    pub(super) async fn create_user(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_USER, IAM_USER, attributes)?;
        let name = string_attribute(CREATE_USER, IAM_USER, attributes, "name")?;
        let path = optional_string(CREATE_USER, IAM_USER, attributes, "path", "/")?;
        self.call_create_user(call, name, path, &request.tags).await
    }

    /// Changes the user's path when it differs (`UpdateUser`), after one `GetUser`.
    pub(super) async fn update_user(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(UPDATE_USER, IAM_USER, attributes)?;
        check_rename(UPDATE_USER, IAM_USER, attributes, &request.id)?;
        let name = request.id.as_str();
        let path = optional_string(UPDATE_USER, IAM_USER, attributes, "path", "/")?;
        let Some(current) = self.call_get_user(call, name).await? else {
            return Err(ProviderError::not_found(
                GET_USER,
                format!("the user {name} does not exist"),
            ));
        };
        self.change_iam_tags(call, IAM_USER, name, &request.tags)
            .await?;
        if current.attribute_str("path") == Some(path) {
            let mut current = current;
            current.tags = request.tags.applied_to(&current.tags);
            return Ok(current);
        }
        self.call_update_user(call, name, path).await?;
        // The ARN carries the path: read the user again rather than guess it.
        self.call_get_user(call, name).await?.ok_or_else(|| {
            ProviderError::not_found(GET_USER, format!("the user {name} does not exist"))
        })
    }

    pub(super) async fn delete_user(
        &self,
        call: &Call<'_>,
        name: &str,
    ) -> Result<(), ProviderError> {
        self.call_delete_user(call, name).await
    }

    /// Applies a tag change to a role or user: `TagRole` / `TagUser` for the keys set, `UntagRole` /
    /// `UntagUser` for the keys removed, nothing for an empty change.
    pub(super) async fn change_iam_tags(
        &self,
        call: &Call<'_>,
        type_name: &str,
        name: &str,
        change: &TagChange,
    ) -> Result<(), ProviderError> {
        if !change.set.is_empty() {
            self.call_tag(call, type_name, name, &change.set).await?;
        }
        let removed: Vec<String> = change
            .remove
            .iter()
            .filter(|k| !change.set.contains_key(*k))
            .cloned()
            .collect();
        if !removed.is_empty() {
            self.call_untag(call, type_name, name, removed).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::decoded_document;

    #[test]
    fn a_url_encoded_policy_document_is_decoded_and_plain_json_kept() {
        assert_eq!(
            decoded_document("%7B%22Version%22%3A%222012-10-17%22%7D"),
            r#"{"Version":"2012-10-17"}"#
        );
        assert_eq!(
            decoded_document(r#"{"Sid":"100%25"}"#),
            r#"{"Sid":"100%25"}"#
        );
    }
}
