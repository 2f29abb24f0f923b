//! A security group's rules between the provider's shape and EC2's. The provider's `ingress` and
//! `egress` sets hold one rule per protocol, port range and description, with every source of that rule
//! (IPv4 and IPv6 ranges, prefix lists, other groups, the group itself as `self`); EC2 answers
//! `IpPermission`s, one per protocol and port range, whose sources each carry a description of their own.
//! Reading splits a permission by description; applying sends one permission per rule, so what was
//! authorized is what a revoke names.
//!
//! Protocols are normalised as the provider normalises them ([`ip_protocol`]), on both sides.

use std::collections::{BTreeMap, BTreeSet};

use aws_sdk_ec2::types::{IpPermission, IpRange, Ipv6Range, PrefixListId, UserIdGroupPair};
use provider::Value;
use provider::schema::ip_protocol;

/// One rule of a set, in the provider's terms.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Rule {
    protocol: String,
    from_port: i64,
    to_port: i64,
    description: String,
    cidr_blocks: Vec<String>,
    ipv6_cidr_blocks: Vec<String>,
    prefix_list_ids: Vec<String>,
    security_groups: BTreeSet<String>,
    self_: bool,
}

/// One source of a permission, with the description it carries.
enum Source<'a> {
    Cidr(&'a str),
    Ipv6(&'a str),
    PrefixList(&'a str),
    Group(&'a str),
}

/// The sources of one permission, each with its description.
fn sources(permission: &IpPermission) -> Vec<(Option<&str>, Source<'_>)> {
    let cidrs = permission
        .ip_ranges()
        .iter()
        .filter_map(|r| Some((r.description(), Source::Cidr(r.cidr_ip()?))));
    let ipv6 = permission
        .ipv6_ranges()
        .iter()
        .filter_map(|r| Some((r.description(), Source::Ipv6(r.cidr_ipv6()?))));
    let lists = permission
        .prefix_list_ids()
        .iter()
        .filter_map(|l| Some((l.description(), Source::PrefixList(l.prefix_list_id()?))));
    let groups = permission
        .user_id_group_pairs()
        .iter()
        .filter_map(|p| Some((p.description(), Source::Group(p.group_id()?))));
    cidrs.chain(ipv6).chain(lists).chain(groups).collect()
}

/// The rules of EC2's permissions, `own` being the group they belong to (its pairs are `self`).
pub(super) fn rules_of(permissions: &[IpPermission], own: &str) -> BTreeSet<Rule> {
    let mut out = BTreeSet::new();
    for permission in permissions {
        let protocol = ip_protocol(permission.ip_protocol().unwrap_or("-1"));
        // AWS leaves the ports out for all traffic; the provider reads them as 0.
        let port = |p: Option<i32>| p.map_or(0, i64::from);
        let mut by_description: BTreeMap<String, Rule> = BTreeMap::new();
        for (description, source) in sources(permission) {
            let description = description.unwrap_or_default().to_owned();
            let rule = by_description
                .entry(description.clone())
                .or_insert_with(|| Rule {
                    protocol: protocol.clone(),
                    from_port: port(permission.from_port()),
                    to_port: port(permission.to_port()),
                    description,
                    cidr_blocks: Vec::new(),
                    ipv6_cidr_blocks: Vec::new(),
                    prefix_list_ids: Vec::new(),
                    security_groups: BTreeSet::new(),
                    self_: false,
                });
            match source {
                Source::Cidr(c) => rule.cidr_blocks.push(c.to_owned()),
                Source::Ipv6(c) => rule.ipv6_cidr_blocks.push(c.to_owned()),
                Source::PrefixList(l) => rule.prefix_list_ids.push(l.to_owned()),
                Source::Group(g) if g == own => rule.self_ = true,
                Source::Group(g) => {
                    rule.security_groups.insert(g.to_owned());
                }
            }
        }
        out.extend(by_description.into_values());
    }
    out
}

/// A set of rules in the provider's shape: a set of objects with every argument present.
pub(super) fn rules_value(rules: &BTreeSet<Rule>) -> Value {
    let strings =
        |items: &[String]| Value::List(items.iter().map(|i| Value::from(i.as_str())).collect());
    Value::Set(
        rules
            .iter()
            .map(|r| {
                Value::Map(BTreeMap::from([
                    ("cidr_blocks".to_owned(), strings(&r.cidr_blocks)),
                    (
                        "description".to_owned(),
                        Value::from(r.description.as_str()),
                    ),
                    ("from_port".to_owned(), Value::from(r.from_port)),
                    ("ipv6_cidr_blocks".to_owned(), strings(&r.ipv6_cidr_blocks)),
                    ("prefix_list_ids".to_owned(), strings(&r.prefix_list_ids)),
                    ("protocol".to_owned(), Value::from(r.protocol.as_str())),
                    (
                        "security_groups".to_owned(),
                        Value::Set(
                            r.security_groups
                                .iter()
                                .map(|g| Value::from(g.as_str()))
                                .collect(),
                        ),
                    ),
                    ("self".to_owned(), Value::Bool(r.self_)),
                    ("to_port".to_owned(), Value::from(r.to_port)),
                ]))
            })
            .collect(),
    )
}

/// The rules a requested `ingress` or `egress` set asks for; `Err` names what is malformed.
pub(super) fn wanted_rules(value: &Value) -> Result<BTreeSet<Rule>, String> {
    let entries: Vec<&Value> = match value.peel() {
        Value::Set(items) => items.iter().collect(),
        Value::List(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        other => return Err(format!("a set of rules, not {other}")),
    };
    entries.into_iter().map(wanted_rule).collect()
}

fn wanted_rule(entry: &Value) -> Result<Rule, String> {
    let Some(fields) = entry.peel().as_map() else {
        return Err(format!("a rule object, not {entry}"));
    };
    let field = |name: &str| fields.get(name).map(Value::peel).filter(|v| !v.is_null());
    let port = |name: &str| {
        field(name)
            .and_then(Value::as_number)
            .and_then(|n| n.as_i64())
            .ok_or_else(|| format!("`{name}` must be a whole number"))
    };
    let strings = |name: &str| -> Result<Vec<String>, String> {
        match field(name) {
            None => Ok(Vec::new()),
            Some(Value::List(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("`{name}` must be a list of strings")),
            Some(Value::Set(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("`{name}` must be a set of strings")),
            Some(other) => Err(format!("`{name}` must be a list of strings, not {other}")),
        }
    };
    let protocol = field("protocol")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .ok_or("`protocol` is required")?;
    Ok(Rule {
        protocol: ip_protocol(protocol),
        from_port: port("from_port")?,
        to_port: port("to_port")?,
        description: field("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        cidr_blocks: strings("cidr_blocks")?,
        ipv6_cidr_blocks: strings("ipv6_cidr_blocks")?,
        prefix_list_ids: strings("prefix_list_ids")?,
        security_groups: strings("security_groups")?.into_iter().collect(),
        self_: field("self").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// One rule as the permission that authorizes or revokes exactly it; `own` is the group (for `self`).
pub(super) fn permission(rule: &Rule, own: &str) -> IpPermission {
    let description = (!rule.description.is_empty()).then(|| rule.description.clone());
    let d = || description.clone();
    let mut groups: Vec<UserIdGroupPair> = rule
        .security_groups
        .iter()
        .map(|g| {
            UserIdGroupPair::builder()
                .group_id(g)
                .set_description(d())
                .build()
        })
        .collect();
    if rule.self_ {
        groups.push(
            UserIdGroupPair::builder()
                .group_id(own)
                .set_description(d())
                .build(),
        );
    }
    let ports = rule.protocol != "-1";
    IpPermission::builder()
        .ip_protocol(&rule.protocol)
        .set_from_port(ports.then(|| port_number(rule.from_port)))
        .set_to_port(ports.then(|| port_number(rule.to_port)))
        .set_ip_ranges(Some(
            rule.cidr_blocks
                .iter()
                .map(|c| IpRange::builder().cidr_ip(c).set_description(d()).build())
                .collect(),
        ))
        .set_ipv6_ranges(Some(
            rule.ipv6_cidr_blocks
                .iter()
                .map(|c| {
                    Ipv6Range::builder()
                        .cidr_ipv6(c)
                        .set_description(d())
                        .build()
                })
                .collect(),
        ))
        .set_prefix_list_ids(Some(
            rule.prefix_list_ids
                .iter()
                .map(|l| {
                    PrefixListId::builder()
                        .prefix_list_id(l)
                        .set_description(d())
                        .build()
                })
                .collect(),
        ))
        .set_user_id_group_pairs(Some(groups))
        .build()
}

/// A port as EC2 takes it (ICMP types and codes are -1 to 255; ports 0 to 65535).
fn port_number(port: i64) -> i32 {
    i32::try_from(port).unwrap_or(i32::MAX)
}

/// The allow-all outbound rule AWS gives every new group.
pub(super) fn allow_all_egress() -> Rule {
    Rule {
        protocol: "-1".to_owned(),
        from_port: 0,
        to_port: 0,
        description: String::new(),
        cidr_blocks: vec!["0.0.0.0/0".to_owned()],
        ipv6_cidr_blocks: Vec::new(),
        prefix_list_ids: Vec::new(),
        security_groups: BTreeSet::new(),
        self_: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permission_splits_by_description_and_names_the_group_itself_self() {
        let permission = IpPermission::builder()
            .ip_protocol("tcp")
            .from_port(22)
            .to_port(22)
            .ip_ranges(IpRange::builder().cidr_ip("10.0.0.0/8").build())
            .ip_ranges(
                IpRange::builder()
                    .cidr_ip("192.168.0.0/16")
                    .description("office")
                    .build(),
            )
            .user_id_group_pairs(UserIdGroupPair::builder().group_id("sg-1").build())
            .user_id_group_pairs(UserIdGroupPair::builder().group_id("sg-2").build())
            .build();
        let rules = rules_of(&[permission], "sg-1");
        let shown: Vec<(String, Vec<String>, bool, usize)> = rules
            .iter()
            .map(|r| {
                (
                    r.description.clone(),
                    r.cidr_blocks.clone(),
                    r.self_,
                    r.security_groups.len(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                ("".to_owned(), vec!["10.0.0.0/8".to_owned()], true, 1),
                (
                    "office".to_owned(),
                    vec!["192.168.0.0/16".to_owned()],
                    false,
                    0
                ),
            ]
        );
    }

    #[test]
    fn all_traffic_reads_ports_zero_and_is_sent_without_ports() {
        let permission = IpPermission::builder()
            .ip_protocol("-1")
            .ip_ranges(IpRange::builder().cidr_ip("0.0.0.0/0").build())
            .build();
        let rules = rules_of(&[permission], "sg-1");
        assert_eq!(rules.iter().next(), Some(&allow_all_egress()));
        let sent = permission_for_test(&allow_all_egress());
        assert_eq!((sent.from_port(), sent.to_port()), (None, None));
    }

    fn permission_for_test(rule: &Rule) -> IpPermission {
        permission(rule, "sg-1")
    }

    #[test]
    fn a_requested_rule_takes_the_provider_defaults() {
        let requested = Value::Set(
            [Value::Map(BTreeMap::from([
                ("from_port".to_owned(), Value::from(443)),
                ("to_port".to_owned(), Value::from(443)),
                ("protocol".to_owned(), Value::from("TCP")),
                (
                    "cidr_blocks".to_owned(),
                    Value::List(vec![Value::from("0.0.0.0/0")]),
                ),
            ]))]
            .into_iter()
            .collect(),
        );
        let wanted = wanted_rules(&requested).unwrap();
        let read_back = rules_value(&wanted);
        let again = wanted_rules(&read_back).unwrap();
        assert_eq!(wanted, again);
        assert_eq!(
            wanted.iter().next().map(|r| r.protocol.as_str()),
            Some("tcp")
        );
        let missing = Value::Set([Value::Map(BTreeMap::new())].into_iter().collect());
        assert_eq!(
            wanted_rules(&missing),
            Err("`protocol` is required".to_owned())
        );
    }
}
