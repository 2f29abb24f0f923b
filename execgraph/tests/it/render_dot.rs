//! The Graphviz rendering.

use expect_test::expect;

use crate::shapes;
use crate::support::B;

#[test]
fn a_create_renders_as_dot() {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let graph = b.finish().unwrap();
    expect![[r#"
        digraph {
            0 [ label = "v[0] = {\"name\" = \"a\"}" ]
            1 [ label = "r[0] = ResourceInstanceCurrentMeta(test.a, nil)" ]
            2 [ label = "r[1] = ResourceInstanceDesired(r[0])" ]
            3 [ label = "r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0])" ]
            4 [ label = "r[3] = ManagedApply(r[2], nil, w[0])" ]
            5 [ label = "w[0] = await" ]
            6 [ label = "test.a" ]
            1 -> 2 [ ]
            1 -> 3 [ ]
            2 -> 3 [ ]
            0 -> 3 [ ]
            3 -> 4 [ ]
            5 -> 4 [ ]
            4 -> 6 [ ]
        }
    "#]]
    .assert_eq(&graph.to_dot());
}
