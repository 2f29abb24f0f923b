//! How a provider rewrites a configured value before it is planned and applied (what Terraform's SDK
//! calls a state function): a security group rule's `protocol` written `"TCP"` or `"6"` is planned as
//! `"tcp"`, the form AWS answers, so a converged object shows no change.

use crate::value::Value;

/// A rewrite of an attribute's configured value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Normalize {
    /// An IP protocol as the AWS provider keeps it: see [`ip_protocol`].
    IpProtocol,
}

impl Normalize {
    /// The value as the provider keeps it; a value of another kind than the rewrite expects (unknown,
    /// null, a number where a string is due) is left as it is.
    pub fn apply(self, value: Value) -> Value {
        match self {
            Normalize::IpProtocol => match value {
                Value::String(p) => Value::String(ip_protocol(&p)),
                Value::Number(n) => Value::String(ip_protocol(&n.to_string())),
                Value::Sensitive(inner) => Value::Sensitive(Box::new(self.apply(*inner))),
                other => other,
            },
        }
    }
}

/// An IP protocol as the AWS provider keeps it: lowercase, the name of the four protocols EC2 names
/// (`6` is `tcp`, `17` `udp`, `1` `icmp`, `58` `icmpv6`), `-1` for all traffic (`all` too), other
/// protocol numbers as written.
pub fn ip_protocol(protocol: &str) -> String {
    let lower = protocol.trim().to_ascii_lowercase();
    match lower.as_str() {
        "6" => "tcp".to_owned(),
        "17" => "udp".to_owned(),
        "1" => "icmp".to_owned(),
        "58" => "icmpv6".to_owned(),
        "all" => "-1".to_owned(),
        _ => lower,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_take_the_form_aws_answers() {
        let cases = [
            ("TCP", "tcp"),
            ("6", "tcp"),
            ("17", "udp"),
            ("Icmp", "icmp"),
            ("58", "icmpv6"),
            ("all", "-1"),
            ("-1", "-1"),
            ("50", "50"),
        ];
        for (written, kept) in cases {
            assert_eq!(ip_protocol(written), kept, "{written}");
        }
        assert_eq!(
            Normalize::IpProtocol.apply(Value::from(6)),
            Value::from("tcp")
        );
        assert_eq!(Normalize::IpProtocol.apply(Value::Null), Value::Null);
    }
}
