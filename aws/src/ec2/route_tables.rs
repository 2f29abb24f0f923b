//! Route tables and what comes back inline with them: routes (`aws_route`, id `<table>_<destination>`)
//! and subnet associations (`aws_route_table_association`, id `rtbassoc-…`). All three are read from
//! `DescribeRouteTables`; tables are created with their tags in `CreateRouteTable`, routes with
//! `CreateRoute` (a target change is `ReplaceRoute`), associations with `AssociateRouteTable`. A table's
//! inline `route` set is the same routes in the provider's shape: declared, a create makes each route
//! after the table and an update deletes, replaces and creates routes until the table has exactly the
//! set; not declared, the table's routes are left as they are.
//!
//! What AWS makes by itself is left out: each VPC's main route table (from listings of tables), the
//! `local` route of every table and the main association (everywhere). Routes to other destinations than
//! an IPv4 CIDR block and gateway associations are not served types, so they are left out too.

use std::collections::BTreeMap;

use aws_sdk_ec2::types::{Filter, ResourceType, Route, RouteTable, RouteTableAssociation};
use provider::{
    Call, CreateRequest, ListPage, ListRequest, LiveObject, ProviderError, ProviderErrorKind,
    UpdateRequest, Value,
};

use super::{
    ROUTE, ROUTE_TABLE, ROUTE_TABLE_ASSOCIATION, absent_when_not_found, describe_filters, filter,
    next_token, optional_string, refuse_changed, some_filters, string_or_null, tag_map,
    tag_specification, vpc_scope,
};
use crate::error::from_sdk;
use crate::{AwsProvider, check_names, invalid, string_attribute};

const DESCRIBE_ROUTE_TABLES: &str = "ec2:DescribeRouteTables";
const CREATE_ROUTE_TABLE: &str = "ec2:CreateRouteTable";
const DELETE_ROUTE_TABLE: &str = "ec2:DeleteRouteTable";
const CREATE_ROUTE: &str = "ec2:CreateRoute";
const REPLACE_ROUTE: &str = "ec2:ReplaceRoute";
const DELETE_ROUTE: &str = "ec2:DeleteRoute";
const ASSOCIATE_ROUTE_TABLE: &str = "ec2:AssociateRouteTable";
const DISASSOCIATE_ROUTE_TABLE: &str = "ec2:DisassociateRouteTable";

/// `DescribeRouteTables` pages by 100 at most.
const ROUTE_TABLE_PAGE: i32 = 100;

/// The gateway of the route AWS adds to every table for the VPC's own range.
const LOCAL_GATEWAY: &str = "local";

/// What a route points at, as the provider's arguments name it (one target set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RouteTarget {
    gateway_id: Option<String>,
    network_interface_id: Option<String>,
}

impl RouteTarget {
    fn of(route: &Route) -> RouteTarget {
        RouteTarget {
            gateway_id: route.gateway_id().map(str::to_owned),
            network_interface_id: route.network_interface_id().map(str::to_owned),
        }
    }

    /// The target a request asks for: its `gateway_id` and `network_interface_id` (`""` is none).
    fn requested(
        operation: &str,
        type_name: &str,
        attributes: &BTreeMap<String, Value>,
    ) -> Result<RouteTarget, ProviderError> {
        let text = |name: &str| match attributes.get(name).map(Value::peel) {
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            _ => optional_string(operation, type_name, attributes, name)
                .map(|s| s.map(str::to_owned)),
        };
        Ok(RouteTarget {
            gateway_id: text("gateway_id")?,
            network_interface_id: text("network_interface_id")?,
        })
    }
}

/// The routes a table's `route` set asks for, by destination.
fn wanted_routes(
    operation: &str,
    route: &Value,
) -> Result<BTreeMap<String, RouteTarget>, ProviderError> {
    let entries: Vec<&Value> = match route.peel() {
        Value::Set(items) => items.iter().collect(),
        Value::List(items) => items.iter().collect(),
        other => {
            return Err(invalid(
                operation,
                format!("{ROUTE_TABLE}.route must be a set of routes, not {other}"),
            ));
        }
    };
    let mut out = BTreeMap::new();
    for entry in entries {
        let Some(fields) = entry.peel().as_map() else {
            return Err(invalid(
                operation,
                format!("{ROUTE_TABLE}.route must hold route objects, not {entry}"),
            ));
        };
        let destination = string_attribute(operation, ROUTE_TABLE, fields, "cidr_block")?;
        let target = RouteTarget::requested(operation, ROUTE_TABLE, fields)?;
        out.insert(destination.to_owned(), target);
    }
    Ok(out)
}

/// One route as an entry of its table's `route` set: `""` for a target not set, as the provider reads it.
fn route_entry(destination: &str, target: &RouteTarget) -> Value {
    let text = |t: &Option<String>| Value::from(t.as_deref().unwrap_or_default());
    Value::Map(BTreeMap::from([
        ("cidr_block".to_owned(), Value::from(destination)),
        ("gateway_id".to_owned(), text(&target.gateway_id)),
        (
            "network_interface_id".to_owned(),
            text(&target.network_interface_id),
        ),
    ]))
}

/// The routes of a table that a configuration can declare: IPv4 destinations, the `local` route left
/// out.
fn declarable_routes(table: &RouteTable) -> impl Iterator<Item = (&str, RouteTarget)> {
    table.routes().iter().filter_map(|r: &Route| {
        let destination = r.destination_cidr_block()?;
        (r.gateway_id() != Some(LOCAL_GATEWAY)).then(|| (destination, RouteTarget::of(r)))
    })
}

/// Whether a table is its VPC's main route table.
fn is_main(table: &RouteTable) -> bool {
    table.associations().iter().any(|a| a.main() == Some(true))
}

/// A route's id: its table and destination joined by `_`.
fn route_id(table: &str, destination: &str) -> String {
    format!("{table}_{destination}")
}

/// A route id split into its table and destination.
fn split_route_id(operation: &str, id: &str) -> Result<(String, String), ProviderError> {
    match id.split_once('_') {
        Some((table, destination)) if !table.is_empty() && !destination.is_empty() => {
            Ok((table.to_owned(), destination.to_owned()))
        }
        _ => Err(invalid(
            operation,
            format!("{id:?} is not a route id (<route_table_id>_<destination_cidr_block>)"),
        )),
    }
}

impl AwsProvider {
    fn route_table_object(&self, table: &RouteTable) -> Option<LiveObject> {
        let id = table.route_table_id()?;
        let arn = self.ec2_arn(table.owner_id().unwrap_or_default(), "route-table", id);
        let routes = declarable_routes(table)
            .map(|(destination, target)| route_entry(destination, &target))
            .collect();
        Some(self.ec2_object(
            ROUTE_TABLE,
            id,
            [
                ("vpc_id", Value::from(table.vpc_id().unwrap_or_default())),
                ("arn", Value::from(arn)),
                ("route", Value::Set(routes)),
            ],
            tag_map(table.tags()),
        ))
    }

    fn route_object(&self, table: &str, destination: &str, target: &RouteTarget) -> LiveObject {
        self.ec2_object(
            ROUTE,
            &route_id(table, destination),
            [
                ("route_table_id", Value::from(table)),
                ("destination_cidr_block", Value::from(destination)),
                ("gateway_id", string_or_null(target.gateway_id.as_deref())),
                (
                    "network_interface_id",
                    string_or_null(target.network_interface_id.as_deref()),
                ),
            ],
            Default::default(),
        )
    }

    fn association_object(&self, id: &str, table: &str, subnet: &str) -> LiveObject {
        self.ec2_object(
            ROUTE_TABLE_ASSOCIATION,
            id,
            [
                ("subnet_id", Value::from(subnet)),
                ("route_table_id", Value::from(table)),
            ],
            Default::default(),
        )
    }

    /// The routes and subnet associations of a table that a configuration can declare.
    fn inline_children(&self, table: &RouteTable) -> Vec<LiveObject> {
        let Some(id) = table.route_table_id() else {
            return Vec::new();
        };
        let routes = declarable_routes(table)
            .map(|(destination, target)| self.route_object(id, destination, &target));
        let associations = table
            .associations()
            .iter()
            .filter(|a: &&RouteTableAssociation| a.main() != Some(true))
            .filter_map(|a| {
                let subnet = a.subnet_id()?;
                Some(self.association_object(a.route_table_association_id()?, id, subnet))
            });
        routes.chain(associations).collect()
    }

    // ----- One method per API operation: counted, traced, errors classified. -----

    #[tracing::instrument(skip_all, fields(operation = DESCRIBE_ROUTE_TABLES), err)]
    async fn call_describe_route_tables(
        &self,
        call: &Call<'_>,
        ids: Option<Vec<String>>,
        filters: Vec<Filter>,
        token: Option<String>,
    ) -> Result<(Vec<RouteTable>, Option<String>), ProviderError> {
        call.attempt(DESCRIBE_ROUTE_TABLES);
        let paged = ids.is_none();
        let out = self
            .ec2
            .describe_route_tables()
            .set_route_table_ids(ids)
            .set_filters(some_filters(filters))
            .set_max_results(paged.then_some(ROUTE_TABLE_PAGE))
            .set_next_token(token)
            .send()
            .await
            .map_err(|e| from_sdk(DESCRIBE_ROUTE_TABLES, e))?;
        Ok((out.route_tables().to_vec(), next_token(out.next_token())))
    }

    #[tracing::instrument(skip_all, fields(operation = CREATE_ROUTE_TABLE), err)]
    async fn call_create_route_table(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
        vpc: &str,
    ) -> Result<RouteTable, ProviderError> {
        call.attempt(CREATE_ROUTE_TABLE);
        let tags = tag_specification(ResourceType::RouteTable, &request.tags);
        let out = self
            .ec2
            .create_route_table()
            .vpc_id(vpc)
            .set_tag_specifications(tags.map(|t| vec![t]))
            .send()
            .await
            .map_err(|e| from_sdk(CREATE_ROUTE_TABLE, e))?;
        out.route_table().cloned().ok_or_else(|| {
            ProviderError::new(
                CREATE_ROUTE_TABLE,
                ProviderErrorKind::ServerError,
                "CreateRouteTable answered without the table",
            )
        })
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_ROUTE_TABLE, id = %id), err)]
    async fn call_delete_route_table(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_ROUTE_TABLE);
        self.ec2
            .delete_route_table()
            .route_table_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_ROUTE_TABLE, e))?;
        Ok(())
    }

    /// Creates the route, or with `replace` points the existing one at `target` (`ReplaceRoute`).
    #[tracing::instrument(skip_all, fields(table = %table, destination = %destination), err)]
    async fn call_put_route(
        &self,
        call: &Call<'_>,
        table: &str,
        destination: &str,
        target: &RouteTarget,
        replace: bool,
    ) -> Result<(), ProviderError> {
        let gateway = target.gateway_id.clone();
        let interface = target.network_interface_id.clone();
        if replace {
            call.attempt(REPLACE_ROUTE);
            self.ec2
                .replace_route()
                .route_table_id(table)
                .destination_cidr_block(destination)
                .set_gateway_id(gateway)
                .set_network_interface_id(interface)
                .send()
                .await
                .map_err(|e| from_sdk(REPLACE_ROUTE, e))?;
        } else {
            call.attempt(CREATE_ROUTE);
            self.ec2
                .create_route()
                .route_table_id(table)
                .destination_cidr_block(destination)
                .set_gateway_id(gateway)
                .set_network_interface_id(interface)
                .send()
                .await
                .map_err(|e| from_sdk(CREATE_ROUTE, e))?;
        }
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = DELETE_ROUTE, table = %table, destination = %destination), err)]
    async fn call_delete_route(
        &self,
        call: &Call<'_>,
        table: &str,
        destination: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DELETE_ROUTE);
        self.ec2
            .delete_route()
            .route_table_id(table)
            .destination_cidr_block(destination)
            .send()
            .await
            .map_err(|e| from_sdk(DELETE_ROUTE, e))?;
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(operation = ASSOCIATE_ROUTE_TABLE, table = %table, subnet = %subnet), err)]
    async fn call_associate_route_table(
        &self,
        call: &Call<'_>,
        table: &str,
        subnet: &str,
    ) -> Result<String, ProviderError> {
        call.attempt(ASSOCIATE_ROUTE_TABLE);
        let out = self
            .ec2
            .associate_route_table()
            .route_table_id(table)
            .subnet_id(subnet)
            .send()
            .await
            .map_err(|e| from_sdk(ASSOCIATE_ROUTE_TABLE, e))?;
        out.association_id().map(str::to_owned).ok_or_else(|| {
            ProviderError::new(
                ASSOCIATE_ROUTE_TABLE,
                ProviderErrorKind::ServerError,
                "AssociateRouteTable answered without the association's id",
            )
        })
    }

    #[tracing::instrument(skip_all, fields(operation = DISASSOCIATE_ROUTE_TABLE, id = %id), err)]
    async fn call_disassociate_route_table(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        call.attempt(DISASSOCIATE_ROUTE_TABLE);
        self.ec2
            .disassociate_route_table()
            .association_id(id)
            .send()
            .await
            .map_err(|e| from_sdk(DISASSOCIATE_ROUTE_TABLE, e))?;
        Ok(())
    }

    // ----- Route tables through the protocol. -----

    /// The table `id`, `None` when it does not exist.
    async fn describe_route_table(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<RouteTable>, ProviderError> {
        let answer = self
            .call_describe_route_tables(call, Some(vec![id.to_owned()]), Vec::new(), None)
            .await;
        let Some((tables, _)) = absent_when_not_found(answer)? else {
            return Ok(None);
        };
        Ok(tables.into_iter().find(|t| t.route_table_id() == Some(id)))
    }

    /// One page of route tables (those of one VPC, when scoped), main tables left out, with their routes
    /// and associations as the page's children.
    pub(super) async fn list_route_tables(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let mut filters = describe_filters(&request.tag_filters);
        filters.extend(vpc_scope(DESCRIBE_ROUTE_TABLES, request)?.map(|v| filter("vpc-id", &v)));
        let (tables, next_page_token) = self
            .call_describe_route_tables(call, None, filters, request.page_token.clone())
            .await?;
        let listed: Vec<&RouteTable> = tables.iter().filter(|t| !is_main(t)).collect();
        Ok(ListPage {
            objects: listed
                .iter()
                .filter_map(|t| self.route_table_object(t))
                .collect(),
            children: listed
                .iter()
                .flat_map(|t| self.inline_children(t))
                .collect(),
            tags_included: true,
            next_page_token,
        })
    }

    /// Routes or associations: one table's (the listing's parent), else those of every table on one page
    /// of `DescribeRouteTables`. They carry no tags, so a tag-filtered listing finds none.
    pub(super) async fn list_inline(
        &self,
        call: &Call<'_>,
        request: &ListRequest,
    ) -> Result<ListPage, ProviderError> {
        let (tables, next_page_token) = match &request.parent {
            Some(p) if p.type_name == ROUTE_TABLE => {
                let table = self.describe_route_table(call, &p.id).await?;
                (table.into_iter().collect(), None)
            }
            Some(p) => {
                return Err(invalid(
                    DESCRIBE_ROUTE_TABLES,
                    format!(
                        "{} is not listed under a {}",
                        request.type_name, p.type_name
                    ),
                ));
            }
            None => {
                let (tables, next) = self
                    .call_describe_route_tables(call, None, Vec::new(), request.page_token.clone())
                    .await?;
                (tables, next)
            }
        };
        let objects = tables
            .iter()
            .flat_map(|t| self.inline_children(t))
            .filter(|o| o.type_name == request.type_name && request.tag_filters.is_empty())
            .collect();
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: false,
            next_page_token,
        })
    }

    pub(super) async fn read_route_table(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        Ok(self
            .describe_route_table(call, id)
            .await?
            .and_then(|t| self.route_table_object(&t)))
    }

    pub(super) async fn create_route_table(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        check_names(CREATE_ROUTE_TABLE, ROUTE_TABLE, &request.attributes)?;
        let vpc = string_attribute(
            CREATE_ROUTE_TABLE,
            ROUTE_TABLE,
            &request.attributes,
            "vpc_id",
        )?;
        let wanted = match request.attributes.get("route") {
            Some(route) if !route.peel().is_null() => wanted_routes(CREATE_ROUTE, route)?,
            _ => BTreeMap::new(),
        };
        let table = self.call_create_route_table(call, request, vpc).await?;
        let mut object = self.route_table_object(&table).ok_or_else(|| {
            ProviderError::new(
                CREATE_ROUTE_TABLE,
                ProviderErrorKind::ServerError,
                "CreateRouteTable answered without the table's id",
            )
        })?;
        for (destination, target) in &wanted {
            self.call_put_route(call, &object.id, destination, target, false)
                .await?;
        }
        let routes = wanted.iter().map(|(d, t)| route_entry(d, t)).collect();
        object
            .attributes
            .insert("route".to_owned(), Value::Set(routes));
        object.tags = request.tags.clone();
        Ok(object)
    }

    /// `vpc_id` forces replacement: reads the table, refuses a change of it, makes a declared `route` set
    /// the table's routes (deletes first, then replaces, then creates) and applies the tag change.
    pub(super) async fn update_route_table(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        check_names(super::CREATE_TAGS, ROUTE_TABLE, &request.attributes)?;
        let Some(mut table) = self.read_route_table(call, &request.id).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_ROUTE_TABLES,
                format!("the route table {} does not exist", request.id),
            ));
        };
        refuse_changed(
            super::CREATE_TAGS,
            ROUTE_TABLE,
            &table,
            &request.attributes,
            &["vpc_id"],
        )?;
        if let Some(route) = request
            .attributes
            .get("route")
            .filter(|r| !r.peel().is_null())
        {
            let wanted = wanted_routes(CREATE_ROUTE, route)?;
            self.converge_routes(call, &table, &wanted).await?;
            let routes = wanted.iter().map(|(d, t)| route_entry(d, t)).collect();
            table
                .attributes
                .insert("route".to_owned(), Value::Set(routes));
        }
        self.apply_ec2_tags(call, &request.id, &request.tags)
            .await?;
        table.tags = request.tags.applied_to(&table.tags);
        Ok(table)
    }

    /// Makes the routes of `table` (as last read) exactly `wanted`.
    async fn converge_routes(
        &self,
        call: &Call<'_>,
        table: &LiveObject,
        wanted: &BTreeMap<String, RouteTarget>,
    ) -> Result<(), ProviderError> {
        let current: BTreeMap<String, RouteTarget> = match table.attribute("route") {
            Some(route) => wanted_routes(DESCRIBE_ROUTE_TABLES, route)?,
            None => BTreeMap::new(),
        };
        for destination in current.keys().filter(|d| !wanted.contains_key(*d)) {
            self.call_delete_route(call, &table.id, destination).await?;
        }
        for (destination, target) in wanted {
            match current.get(destination) {
                Some(now) if now == target => {}
                Some(_) => {
                    self.call_put_route(call, &table.id, destination, target, true)
                        .await?
                }
                None => {
                    self.call_put_route(call, &table.id, destination, target, false)
                        .await?
                }
            }
        }
        Ok(())
    }

    pub(super) async fn delete_route_table(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        self.call_delete_route_table(call, id).await
    }

    // ----- Routes. -----

    /// The route of `table` to `destination`, from the table's `DescribeRouteTables` answer.
    pub(super) async fn find_route(
        &self,
        call: &Call<'_>,
        table: &str,
        destination: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let Some(found) = self.describe_route_table(call, table).await? else {
            return Ok(None);
        };
        let id = route_id(table, destination);
        Ok(self
            .inline_children(&found)
            .into_iter()
            .find(|o| o.type_name == ROUTE && o.id == id))
    }

    pub(super) async fn read_route(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let (table, destination) = split_route_id(DESCRIBE_ROUTE_TABLES, id)?;
        self.find_route(call, &table, &destination).await
    }

    pub(super) async fn create_route(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(CREATE_ROUTE, ROUTE, attributes)?;
        let table = string_attribute(CREATE_ROUTE, ROUTE, attributes, "route_table_id")?;
        let destination =
            string_attribute(CREATE_ROUTE, ROUTE, attributes, "destination_cidr_block")?;
        let target = RouteTarget::requested(CREATE_ROUTE, ROUTE, attributes)?;
        self.call_put_route(call, table, destination, &target, false)
            .await?;
        Ok(self.route_object(table, destination, &target))
    }

    /// Points the route at the gateway asked (`ReplaceRoute`); its table and destination are its id.
    pub(super) async fn update_route(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let attributes = &request.attributes;
        check_names(REPLACE_ROUTE, ROUTE, attributes)?;
        let (table, destination) = split_route_id(REPLACE_ROUTE, &request.id)?;
        let current = self.route_object(&table, &destination, &RouteTarget::default());
        refuse_changed(
            REPLACE_ROUTE,
            ROUTE,
            &current,
            attributes,
            &["route_table_id", "destination_cidr_block"],
        )?;
        let target = RouteTarget::requested(REPLACE_ROUTE, ROUTE, attributes)?;
        self.call_put_route(call, &table, &destination, &target, true)
            .await?;
        Ok(self.route_object(&table, &destination, &target))
    }

    pub(super) async fn delete_route(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        let (table, destination) = split_route_id(DELETE_ROUTE, id)?;
        self.call_delete_route(call, &table, &destination).await
    }

    // ----- Associations. -----

    /// The association of `table` that `matches`, from the table's `DescribeRouteTables` answer.
    pub(super) async fn find_association(
        &self,
        call: &Call<'_>,
        table: &str,
        matches: impl Fn(&LiveObject) -> bool,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let Some(found) = self.describe_route_table(call, table).await? else {
            return Ok(None);
        };
        Ok(self
            .inline_children(&found)
            .into_iter()
            .find(|o| o.type_name == ROUTE_TABLE_ASSOCIATION && matches(o)))
    }

    /// An association by its id: the one table whose associations hold it, by a filter.
    pub(super) async fn read_association(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let by_id = filter("association.route-table-association-id", id);
        let (tables, _) = self
            .call_describe_route_tables(call, None, vec![by_id], None)
            .await?;
        Ok(tables
            .iter()
            .flat_map(|t| self.inline_children(t))
            .find(|o| o.type_name == ROUTE_TABLE_ASSOCIATION && o.id == id))
    }

    pub(super) async fn create_association(
        &self,
        call: &Call<'_>,
        request: &CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        let op = ASSOCIATE_ROUTE_TABLE;
        let attributes = &request.attributes;
        check_names(op, ROUTE_TABLE_ASSOCIATION, attributes)?;
        let table = string_attribute(op, ROUTE_TABLE_ASSOCIATION, attributes, "route_table_id")?;
        let subnet = string_attribute(op, ROUTE_TABLE_ASSOCIATION, attributes, "subnet_id")?;
        let id = self.call_associate_route_table(call, table, subnet).await?;
        Ok(self.association_object(&id, table, subnet))
    }

    /// Both arguments force replacement: an update changes nothing and answers the association as read.
    pub(super) async fn update_association(
        &self,
        call: &Call<'_>,
        request: &UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        check_names(
            ASSOCIATE_ROUTE_TABLE,
            ROUTE_TABLE_ASSOCIATION,
            &request.attributes,
        )?;
        let Some(found) = self.read_association(call, &request.id).await? else {
            return Err(ProviderError::not_found(
                DESCRIBE_ROUTE_TABLES,
                format!("the route table association {} does not exist", request.id),
            ));
        };
        refuse_changed(
            ASSOCIATE_ROUTE_TABLE,
            ROUTE_TABLE_ASSOCIATION,
            &found,
            &request.attributes,
            &["subnet_id", "route_table_id"],
        )?;
        Ok(found)
    }

    pub(super) async fn delete_association(
        &self,
        call: &Call<'_>,
        id: &str,
    ) -> Result<(), ProviderError> {
        self.call_disassociate_route_table(call, id).await
    }
}

#[cfg(test)]
mod tests {
    use super::split_route_id;

    #[test]
    fn a_route_id_is_its_table_and_destination() {
        assert_eq!(
            split_route_id("x", "rtb-0a_0.0.0.0/0").ok(),
            Some(("rtb-0a".to_owned(), "0.0.0.0/0".to_owned()))
        );
        assert!(split_route_id("x", "rtb-0a").is_err());
        assert!(split_route_id("x", "_0.0.0.0/0").is_err());
    }
}
