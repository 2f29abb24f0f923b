//! The reference rule: every name an expression reads is declared, `count` and `each` appear only in
//! blocks that repeat, and an attribute of a single-instance block exists in its type's schema.
//!
//! References are judged as written; this rule never evaluates an expression.

use crate::config::{Expr, Repetition, Resource};
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;

impl Lint<'_, '_, '_> {
    /// A resource's `provider` meta-argument names a declared configuration of the type's own provider
    /// (`aws.west` for an `aws_*` type); the default configuration needs no block.
    fn provider_reference(&mut self, res: &Resource) {
        let Some((wanted, loc)) = &res.provider else {
            return;
        };
        let config = self.input.config;
        let declared = config.providers.iter().any(|p| p.reference() == *wanted);
        let own = res.type_name.split('_').next().unwrap_or_default();
        let kind_of = |name: &str| {
            config
                .providers
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.kind)
        };
        // A local name `required_providers` gives the type's provider (`awseast` for hashicorp/aws).
        let same_provider = wanted.name == own
            || kind_of(&wanted.name).is_some_and(|k| Some(k.as_str()) == Some(own));
        let problem = if !same_provider {
            Some((
                format!(
                    "`provider = {wanted}` names a configuration of another provider than `{own}`"
                ),
                format!(
                    "a `{}` resource uses a configuration of the `{own}` provider",
                    res.type_name
                ),
            ))
        } else if wanted.alias.is_some() && !declared {
            Some((
                format!(
                    "`provider = {wanted}` names a provider configuration that is not declared"
                ),
                format!(
                    "declare `provider \"{}\" {{ alias = \"{}\" ... }}`, or fix the reference",
                    wanted.name,
                    wanted.alias.as_deref().unwrap_or_default()
                ),
            ))
        } else {
            None
        };
        if let Some((summary, detail)) = problem {
            self.push(
                Diagnostic::new(Code::UnknownReference, summary, detail)
                    .with_address(res.address().to_string())
                    .at(loc.to_pos()),
            );
        }
    }

    /// How diagnostics name the block `res`: `data.TYPE.NAME` for a data block, `TYPE.NAME` for a
    /// resource.
    fn shown_address(&self, res: &Resource) -> String {
        let is_data = self
            .input
            .config
            .data_sources()
            .iter()
            .any(|d| std::ptr::eq(d, res));
        if is_data {
            format!("data.{}", res.address())
        } else {
            res.address().to_string()
        }
    }

    /// Each `depends_on` entry of `res` (a resource or a data block) names a declared block.
    fn depends_on_declared(&mut self, res: &Resource) {
        let config = self.input.config;
        for (path, loc) in &res.depends_on {
            let declared = match path.as_slice() {
                [root, t, n] if root == "data" => config.data_source(t, n).is_some(),
                [t, n] => config.resource(t, n).is_some(),
                _ => false,
            };
            if !declared {
                self.push(
                    Diagnostic::new(
                        Code::UnknownReference,
                        format!(
                            "`depends_on` names `{}`, which is not declared",
                            path.join(".")
                        ),
                        "declare the block or fix the reference",
                    )
                    .with_address(self.shown_address(res))
                    .at(loc.to_pos()),
                );
            }
        }
    }

    /// Every reference in the configuration names something declared, and `count`/`each` only where the
    /// block repeats.
    pub(crate) fn references(&mut self) {
        let config = self.input.config;
        let mut exprs: Vec<(&Expr, Option<&Resource>)> = Vec::new();
        for attr in config.locals().values() {
            exprs.push((&attr.expr, None));
        }
        for output in config.outputs().values() {
            exprs.push((&output.value, None));
        }
        for p in &config.providers {
            exprs.extend(p.attrs().map(|a| (&a.expr, None)));
        }
        if let Some(live) = &config.live {
            exprs.extend(live.estate.iter().map(|a| (&a.expr, None)));
            if let Some(store) = &live.record_store {
                exprs.extend(store.settings.values().map(|a| (&a.expr, None)));
            }
        }
        for res in config.resources() {
            for attr in res.attrs.values() {
                exprs.push((&attr.expr, Some(res)));
            }
            self.provider_reference(res);
            // `count` and `for_each` are evaluated before the repetition exists.
            exprs.extend(res.repetition.argument().map(|a| (&a.expr, None)));
            self.depends_on_declared(res);
        }
        for data in config.data_sources() {
            for attr in data.attrs.values() {
                exprs.push((&attr.expr, Some(data)));
            }
            exprs.extend(data.repetition.argument().map(|a| (&a.expr, None)));
            self.depends_on_declared(data);
        }
        for (expr, res) in exprs {
            for (path, loc) in expr.references() {
                if let Some(summary) = self.reference_problem(&path, res) {
                    let mut d = Diagnostic::new(
                        Code::UnknownReference,
                        summary,
                        "declare it or fix the reference",
                    )
                    .at(loc.to_pos());
                    if let Some(r) = res {
                        d = d.with_address(self.shown_address(r));
                    }
                    self.push(d);
                }
            }
        }
    }

    /// Why the reference `path` (read in `res`, if in a resource block) is refused, if it is.
    pub(crate) fn reference_problem(
        &self,
        path: &[String],
        res: Option<&Resource>,
    ) -> Option<String> {
        let config = self.input.config;
        let second = path.get(1).map(String::as_str);
        match path[0].as_str() {
            "var" => match second {
                Some(v) if config.variables().contains_key(v) => None,
                Some(v) => Some(format!("variable `{v}` is not declared")),
                None => Some("`var` must be followed by a variable name".into()),
            },
            "local" => match second {
                Some(l) if config.locals().contains_key(l) || config.is_of_unread_module(l) => None,
                // A module's output not declared: the evaluation names the module and the output.
                Some(l) if l.contains(":output.") => None,
                Some(l) => Some(format!("local `{l}` is not declared")),
                None => Some("`local` must be followed by a local name".into()),
            },
            "count" => match (second, res) {
                (Some("index"), Some(r)) if matches!(r.repetition, Repetition::Count(_)) => None,
                (Some("index"), _) => {
                    Some("`count.index` is used outside a block with `count`".into())
                }
                _ => Some("`count` has only the attribute `index`".into()),
            },
            "each" => match (second, res) {
                (Some("key" | "value"), Some(r))
                    if matches!(r.repetition, Repetition::ForEach(_)) =>
                {
                    None
                }
                (Some("key" | "value"), _) => {
                    Some("`each` is used outside a block with `for_each`".into())
                }
                _ => Some("`each` has only the attributes `key` and `value`".into()),
            },
            "path" => match second {
                Some("module" | "root" | "cwd") => None,
                _ => Some("`path` has only the attributes `module`, `root` and `cwd`".into()),
            },
            "terraform" => match second {
                Some("workspace") => None,
                _ => Some("`terraform` has only the attribute `workspace`".into()),
            },
            "data" => self.data_reference_problem(path),
            type_name if crate::eval::reserved_root(type_name).is_some() => Some(format!(
                "`{type_name}` references are not available: {}",
                crate::eval::reserved_root(type_name).unwrap_or_default()
            )),
            type_name => {
                let Some(name) = second else {
                    return Some(format!("`{type_name}` is not declared"));
                };
                let Some(target) = config.resource(type_name, name) else {
                    return Some(format!("resource `{type_name}.{name}` is not declared"));
                };
                // An attribute of a single-instance block must exist in its type's schema.
                let attr = path.get(2)?;
                let how = match target.repetition {
                    Repetition::Single => None,
                    Repetition::Count(_) => Some("[0]"),
                    Repetition::ForEach(_) => Some("[\"key\"]"),
                };
                if let Some(how) = how {
                    return Some(format!(
                        "`{type_name}.{name}` has several instances: pick one (`{type_name}.{name}{how}.{attr}`) or all \
                         (`{type_name}.{name}[*].{attr}`)"
                    ));
                }
                let schema = self.input.catalog.get(type_name)?;
                (schema.attribute(attr).is_none())
                    .then(|| format!("resource type `{type_name}` has no attribute `{attr}`"))
            }
        }
    }

    /// Why the reference `data.TYPE.NAME...` is refused, if it is: an undeclared block, or an attribute
    /// the data source does not have.
    fn data_reference_problem(&self, path: &[String]) -> Option<String> {
        let (Some(t), Some(n)) = (path.get(1), path.get(2)) else {
            return Some("`data` must be followed by a data source type and name".into());
        };
        let Some(target) = self.input.config.data_source(t, n) else {
            return Some(format!("data source `data.{t}.{n}` is not declared"));
        };
        let attr = path.get(3)?;
        if target.repetition.is_repeated() {
            return Some(format!(
                "`data.{t}.{n}` has several instances: pick one (`data.{t}.{n}[0].{attr}`) or all \
                 (`data.{t}.{n}[*].{attr}`)"
            ));
        }
        let schema = self.input.catalog.data_source(t)?;
        (schema.attribute(attr).is_none())
            .then(|| format!("data source `{t}` has no attribute `{attr}`"))
    }
}
