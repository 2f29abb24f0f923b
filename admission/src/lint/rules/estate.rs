//! The estate rule: one valid estate name, from the `live` block (in `liveplan.hcl` or a `.tf` file) or
//! from outside (`--estate`, else `LIVEPLAN_ESTATE`), and never two that disagree. There is no default:
//! not the directory's name, not a workspace.
//!
//! The rule only reads the configuration and what the caller names from outside; it never reads the
//! environment itself.

use crate::diag::{Code, Diagnostic};
use crate::error::Error;
use crate::eval::Instance;
use crate::lint::{Lint, OutsideEstate};
use crate::marker::Estate;

impl Lint<'_, '_, '_> {
    /// The estate from the `live` block and from outside: absent, conflicting or malformed names are
    /// errors.
    pub(crate) fn estate(&mut self) -> Option<String> {
        let config = self.input.config;
        let mut from_block = None;
        if let Some(attr) = config.live.as_ref().and_then(|l| l.estate.as_ref()) {
            match self.statics.eval(&attr.expr, &Instance::Single) {
                Ok(v) => match v.as_str() {
                    Some(s) if v.is_known() => {
                        from_block = Some((s.to_string(), attr.expr.loc.clone()))
                    }
                    _ => self.push(
                        Diagnostic::new(
                            Code::InvalidEstate,
                            "the `live` block's estate is not a known string",
                            "write the estate name as a string, e.g. `estate = \"acme-net\"`",
                        )
                        .at(attr.expr.loc.to_pos()),
                    ),
                },
                Err(e) => self.push(e.into_diagnostic(Code::InvalidEstate)),
            }
        }
        let outside = self.input.outside_estate;
        let mut ok = true;
        if let Some((name, loc)) = &from_block
            && let Some(why) = estate_problem(name)
        {
            ok = false;
            self.push(
                Diagnostic::new(
                    Code::InvalidEstate,
                    format!("estate name {name:?} is invalid: {why}"),
                    "use a lowercase letter, then up to 127 lowercase letters, digits and hyphens",
                )
                .at(loc.to_pos()),
            );
        }
        if let Some(OutsideEstate { name, source }) = outside
            && let Some(why) = estate_problem(name)
        {
            ok = false;
            self.push(Diagnostic::new(
                Code::InvalidEstate,
                format!("{} {name:?} is invalid: {why}", source.as_str()),
                "use a lowercase letter, then up to 127 lowercase letters, digits and hyphens",
            ));
        }
        match (&from_block, outside) {
            (None, None) => {
                let has_error = self.diags.iter().any(|d| d.code == Code::InvalidEstate);
                if !has_error {
                    let mut d = Diagnostic::new(
                        Code::NoEstate,
                        "no estate is given",
                        "name it one of three ways: a `live { estate = \"name\" }` block in liveplan.hcl \
                         beside the configuration (or in a `.tf` file), `--estate name`, or the \
                         environment variable LIVEPLAN_ESTATE=name",
                    );
                    if let Some(live) = &config.live {
                        d = d.at(live.loc.to_pos());
                    }
                    self.push(d);
                }
                None
            }
            (Some((a, loc)), Some(OutsideEstate { name: b, source })) if a != b => {
                let source = source.as_str();
                self.push(
                    Diagnostic::new(
                        Code::EstateConflict,
                        format!(
                            "the `live` block in {} names estate {a:?} but {source} names {b:?}",
                            loc.file
                        ),
                        format!("drop {source} or make it match the `live` block"),
                    )
                    .at(loc.to_pos()),
                );
                None
            }
            (Some((a, _)), _) => ok.then(|| a.clone()),
            (None, Some(b)) => ok.then(|| b.name.to_string()),
        }
    }
}

/// Why `name` is outside the estate grammar, if it is.
fn estate_problem(name: &str) -> Option<String> {
    match Estate::new(name) {
        Err(Error::InvalidEstate { reason, .. }) => Some(reason),
        Err(other) => Some(other.to_string()),
        Ok(_) => None,
    }
}
