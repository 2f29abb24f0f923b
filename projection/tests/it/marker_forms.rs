//! The marker comparison that writes no address out agrees with the escaped forms of the address.

use admission::marker;
use admission::{BlockAddress, InstanceKey};
use projection::marks;
use proptest::prelude::*;

fn key() -> impl Strategy<Value = InstanceKey> {
    prop_oneof![
        Just(InstanceKey::None),
        (0u64..120).prop_map(InstanceKey::Int),
        any::<u64>().prop_map(InstanceKey::Int),
        "[a-z0-9.:%/ _-]{1,6}".prop_map(InstanceKey::Str),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    /// The comparison that writes nothing out agrees with the escaped forms, for the forms of
    /// nearby addresses and for misspellings of them (leading zeros, signs, trailing text).
    #[test]
    fn a_marker_marks_an_address_exactly_when_it_is_one_of_its_forms(
        key in key(),
        other_key in key(),
        other_name in prop_oneof![Just("b"), Just("b2"), Just("c")],
    ) {
        let address = BlockAddress::new("aws_eip", "b").unwrap().instance(key);
        let other = BlockAddress::new("aws_eip", other_name).unwrap().instance(other_key);
        let mut candidates = vec![
            "aws_eip.b".to_owned(),
            "aws_eip.b:".to_owned(),
            "aws_eip".to_owned(),
            "aws_eip2.b".to_owned(),
        ];
        for form in marker::escaped_forms(&address).into_iter().chain(marker::escaped_forms(&other)) {
            candidates.push(format!("{form}0"));
            candidates.push(format!("{form}x"));
            candidates.push(form.replacen(':', ":0", 1));
            candidates.push(form.replacen(':', ":+", 1));
            candidates.push(form.replacen(':', "", 1));
            candidates.push(form);
        }
        let forms = marker::escaped_forms(&address);
        for candidate in &candidates {
            prop_assert_eq!(
                marks(&address, candidate),
                forms.contains(candidate),
                "{} against {}", address, candidate
            );
        }
    }
}
