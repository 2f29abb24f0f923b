//! The rename and adopt policy: the plain facts `liveplan mv` and `liveplan adopt` (`--release` too)
//! gather, and the rules that refuse one or name the object to retag.
//!
//! The rules only decide; they never gather the facts and never write a tag.

use std::fmt;

use super::Estate;
use crate::address::InstanceAddress;
use ::provider::AdmissionPath;

/// What a rename (`liveplan mv OLD NEW`) found, as plain facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameFacts {
    /// The estate of the run, if there is one.
    pub estate: Option<Estate>,
    /// The old address.
    pub old: InstanceAddress,
    /// The new address.
    pub new: InstanceAddress,
    /// What carries OLD.
    pub at_old: ObjectAtAddress,
    /// A live object of this estate already carries NEW.
    pub new_claimed: bool,
    /// NEW is declared in the configuration.
    pub new_declared: bool,
    /// `--allow-missing-config` was given.
    pub allow_missing_config: bool,
}

/// What carries an address (or sits at a client-named identity) for a rename or an adoption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectAtAddress {
    /// Nothing.
    Nothing,
    /// Exactly one object of this estate.
    Ours {
        /// Its id.
        id: String,
    },
    /// Several objects of this estate (a collision).
    Several {
        /// Their ids, sorted.
        ids: Vec<String>,
    },
    /// An object with no estate tag.
    Unowned {
        /// Its id.
        id: String,
    },
    /// An object of another estate.
    AnotherEstate {
        /// Its id.
        id: String,
        /// The estate that owns it.
        estate: String,
    },
}

/// Why a rename is refused (`mv-refused`); the display is the diagnostic's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameRefusal {
    /// No estate name.
    NoEstate,
    /// OLD and NEW are of different resource types.
    DifferentTypes,
    /// No live object of this estate carries OLD.
    NothingAtOld,
    /// Several live objects carry OLD.
    CollisionAtOld(Vec<String>),
    /// The object at OLD belongs to another estate.
    AnotherEstate(String),
    /// NEW is already claimed by a live object of this estate.
    NewClaimed,
    /// NEW is not declared, and `--allow-missing-config` was not given.
    NewNotDeclared,
}

impl fmt::Display for RenameRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenameRefusal::NoEstate => f.write_str("no estate name: set live { estate } or pass --estate"),
            RenameRefusal::DifferentTypes => f.write_str("the old and new addresses are of different resource types"),
            RenameRefusal::NothingAtOld => f.write_str("no live object of this estate carries the old address"),
            RenameRefusal::CollisionAtOld(ids) => {
                write!(f, "several live objects carry the old address: {}", ids.join(", "))
            }
            RenameRefusal::AnotherEstate(e) => write!(f, "the object is owned by another estate, {e}"),
            RenameRefusal::NewClaimed => f.write_str("a live object of this estate already carries the new address"),
            RenameRefusal::NewNotDeclared => {
                f.write_str("the new address is not declared in the configuration (pass --allow-missing-config)")
            }
        }
    }
}

/// Decides whether a rename may proceed; `Ok` carries the id of the object to retag.
pub fn check_rename(facts: &RenameFacts) -> Result<String, RenameRefusal> {
    if facts.estate.is_none() {
        return Err(RenameRefusal::NoEstate);
    }
    if facts.old.type_name() != facts.new.type_name() {
        return Err(RenameRefusal::DifferentTypes);
    }
    let id = match &facts.at_old {
        ObjectAtAddress::Nothing | ObjectAtAddress::Unowned { .. } => {
            return Err(RenameRefusal::NothingAtOld);
        }
        ObjectAtAddress::Several { ids } => return Err(RenameRefusal::CollisionAtOld(ids.clone())),
        ObjectAtAddress::AnotherEstate { estate, .. } => {
            return Err(RenameRefusal::AnotherEstate(estate.clone()));
        }
        ObjectAtAddress::Ours { id } => id.clone(),
    };
    if facts.new_claimed {
        return Err(RenameRefusal::NewClaimed);
    }
    if !facts.new_declared && !facts.allow_missing_config {
        return Err(RenameRefusal::NewNotDeclared);
    }
    Ok(id)
}

/// What an adoption (`liveplan adopt ADDRESS [--id ID]`) found, as plain facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdoptFacts {
    /// The estate of the run, if there is one.
    pub estate: Option<Estate>,
    /// ADDRESS is declared in the configuration.
    pub declared: bool,
    /// The admission path of ADDRESS's type (`None` for an unadmitted type).
    pub admission: Option<AdmissionPath>,
    /// `--id` was given.
    pub id_given: bool,
    /// The type's objects carry tags.
    pub taggable: bool,
    /// A live object of this estate is already bound to ADDRESS.
    pub already_bound: bool,
    /// The object to adopt: at ADDRESS's client-named identity, or the one `--id` names.
    pub target: ObjectAtAddress,
    /// Whether the object is the one ADDRESS declares. Adopting anything else would hand the next apply
    /// an object that differs from the declaration, and it would replace (destroy) or rewrite it.
    pub declaration: DeclarationMatch,
}

/// How the object to adopt meets ADDRESS's declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclarationMatch {
    /// It is the object at the declared client-named identity, or a bind candidate of the marker-path
    /// instance (its bind-candidate fields equal the declared values).
    Matches,
    /// A client-named instance, and the object is not the one at the declared identity.
    OtherIdentity {
        /// The declared identity (a bucket or role name).
        declared: String,
    },
    /// A marker-path instance, and the object is not one of its bind candidates.
    NotACandidate,
}

/// Why an adoption is refused (`adopt-refused`); the display is the diagnostic's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdoptRefusal {
    /// No estate name.
    NoEstate,
    /// ADDRESS is not declared.
    NotDeclared,
    /// Objects of the type carry no markers, so they cannot be adopted.
    NotTaggable,
    /// A marker-path instance needs `--id` naming the bind candidate.
    IdRequired,
    /// There is no object to adopt.
    NothingToAdopt,
    /// The object belongs to another estate.
    AnotherEstate(String),
    /// The object is already this estate's.
    AlreadyOwned,
    /// ADDRESS is already bound to a live object of this estate.
    AlreadyBound,
    /// The object (its id) is not the one at the declared client-named identity.
    OtherIdentity {
        /// The object named with `--id`.
        id: String,
        /// The declared identity.
        declared: String,
    },
    /// The object (its id) is not a bind candidate of the marker-path instance.
    NotACandidate(String),
}

impl AdoptRefusal {
    /// What to do about the refusal: the diagnostic's detail.
    pub fn detail(&self) -> String {
        match self {
            AdoptRefusal::OtherIdentity { declared, .. } => format!(
                "adopt takes only the object the configuration names, since the next apply would replace any \
                 other: run liveplan adopt without --id to adopt {declared}, or change the configuration to \
                 name this object; nothing was changed"
            ),
            AdoptRefusal::NotACandidate(_) => "its bind-candidate fields do not equal the declared values, so \
                 the next apply would replace or change it: adopt one of the objects liveplan plan lists under \
                 Adoption candidates, or change the configuration to match this object; nothing was changed"
                .to_owned(),
            AdoptRefusal::AlreadyOwned => "it carries this estate's tofu-estate tag; if the plan reports its \
                 markers as malformed, fix its tofu-* tags by hand, or remove them all and adopt it then; \
                 nothing was changed"
                .to_owned(),
            _ => "nothing was changed".to_owned(),
        }
    }
}

impl fmt::Display for AdoptRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdoptRefusal::NoEstate => {
                f.write_str("no estate name: set live { estate } or pass --estate")
            }
            AdoptRefusal::NotDeclared => {
                f.write_str("the address is not declared in the configuration")
            }
            AdoptRefusal::NotTaggable => {
                f.write_str("objects of this type carry no markers and cannot be adopted")
            }
            AdoptRefusal::IdRequired => {
                f.write_str("a marker-path instance is adopted with --id naming the object")
            }
            AdoptRefusal::NothingToAdopt => f.write_str("no live object to adopt"),
            AdoptRefusal::AnotherEstate(e) => {
                write!(f, "the object is owned by another estate, {e}")
            }
            AdoptRefusal::AlreadyOwned => f.write_str("the object already belongs to this estate"),
            AdoptRefusal::AlreadyBound => {
                f.write_str("the address is already bound to a live object of this estate")
            }
            AdoptRefusal::OtherIdentity { id, declared } => write!(
                f,
                "{id} is not the object at the declared identity {declared}"
            ),
            AdoptRefusal::NotACandidate(id) => {
                write!(f, "{id} is not a bind candidate of the address")
            }
        }
    }
}

/// Decides whether an adoption may proceed; `Ok` carries the id of the object to mark.
pub fn check_adopt(facts: &AdoptFacts) -> Result<String, AdoptRefusal> {
    if facts.estate.is_none() {
        return Err(AdoptRefusal::NoEstate);
    }
    if !facts.declared {
        return Err(AdoptRefusal::NotDeclared);
    }
    if !facts.taggable
        || !matches!(
            facts.admission,
            Some(AdmissionPath::ClientNamed | AdmissionPath::Marker)
        )
    {
        return Err(AdoptRefusal::NotTaggable);
    }
    if facts.admission == Some(AdmissionPath::Marker) && !facts.id_given {
        return Err(AdoptRefusal::IdRequired);
    }
    let id = match &facts.target {
        ObjectAtAddress::Nothing => return Err(AdoptRefusal::NothingToAdopt),
        ObjectAtAddress::AnotherEstate { estate, .. } => {
            return Err(AdoptRefusal::AnotherEstate(estate.clone()));
        }
        ObjectAtAddress::Ours { .. } | ObjectAtAddress::Several { .. } => {
            return Err(AdoptRefusal::AlreadyOwned);
        }
        ObjectAtAddress::Unowned { id } => id.clone(),
    };
    if facts.already_bound {
        return Err(AdoptRefusal::AlreadyBound);
    }
    match &facts.declaration {
        DeclarationMatch::Matches => Ok(id),
        DeclarationMatch::OtherIdentity { declared } => Err(AdoptRefusal::OtherIdentity {
            id,
            declared: declared.clone(),
        }),
        DeclarationMatch::NotACandidate => Err(AdoptRefusal::NotACandidate(id)),
    }
}

/// What a release (`liveplan adopt ADDRESS --release ID`, the way out of a marker collision) found, as
/// plain facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseFacts {
    /// The estate of the run, if there is one.
    pub estate: Option<Estate>,
    /// The type's objects carry tags.
    pub taggable: bool,
    /// The object to release.
    pub id: String,
    /// The live objects of this estate that carry ADDRESS, sorted.
    pub carriers: Vec<String>,
    /// The keys of the estate's records that name the object, sorted.
    pub named_by: Vec<String>,
}

/// Why a release is refused (`adopt-refused`); the display is the diagnostic's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReleaseRefusal {
    /// No estate name.
    NoEstate,
    /// Objects of the type carry no markers.
    NotTaggable,
    /// The object does not carry this estate's marker for the address.
    NotACarrier(String),
    /// The object is the only one carrying the address: there is no collision.
    NoCollision(String),
    /// A record of this estate names the object.
    NamedByRecord {
        /// The object.
        id: String,
        /// The record's key.
        record: String,
        /// The other objects of the collision.
        others: Vec<String>,
    },
}

impl ReleaseRefusal {
    /// What to do about the refusal: the diagnostic's detail.
    pub fn detail(&self) -> String {
        match self {
            ReleaseRefusal::NotACarrier(_) => "--release takes one of the objects a marker-collision \
                 error names; nothing was changed"
                .to_owned(),
            ReleaseRefusal::NoCollision(_) => "--release only resolves a marker collision, where the plan \
                 binds none of the objects; releasing the one object the address has would leave it \
                 unmanaged and have the next apply create another; nothing was changed"
                .to_owned(),
            ReleaseRefusal::NamedByRecord { others, .. } => format!(
                "the record says the object is this estate's (the one its create made, the one it located, \
                 or a deposed one awaiting deletion), so it is the one to keep: release {} instead; nothing \
                 was changed",
                others.join(" or ")
            ),
            _ => "nothing was changed".to_owned(),
        }
    }
}

impl fmt::Display for ReleaseRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReleaseRefusal::NoEstate => {
                f.write_str("no estate name: set live { estate } or pass --estate")
            }
            ReleaseRefusal::NotTaggable => {
                f.write_str("objects of this type carry no markers, so there are none to release")
            }
            ReleaseRefusal::NotACarrier(id) => {
                write!(
                    f,
                    "{id} does not carry this estate's marker for the address"
                )
            }
            ReleaseRefusal::NoCollision(id) => write!(
                f,
                "{id} is the only live object carrying the address: there is no collision to resolve"
            ),
            ReleaseRefusal::NamedByRecord { id, record, .. } => {
                write!(f, "the record {record} names {id}")
            }
        }
    }
}

/// Decides whether a release may proceed: the object is one of several of this estate carrying the
/// address, and no record names it.
pub fn check_release(facts: &ReleaseFacts) -> Result<(), ReleaseRefusal> {
    if facts.estate.is_none() {
        return Err(ReleaseRefusal::NoEstate);
    }
    if !facts.taggable {
        return Err(ReleaseRefusal::NotTaggable);
    }
    let id = &facts.id;
    if !facts.carriers.contains(id) {
        return Err(ReleaseRefusal::NotACarrier(id.clone()));
    }
    if facts.carriers.len() < 2 {
        return Err(ReleaseRefusal::NoCollision(id.clone()));
    }
    match facts.named_by.first() {
        Some(record) => Err(ReleaseRefusal::NamedByRecord {
            id: id.clone(),
            record: record.clone(),
            others: facts
                .carriers
                .iter()
                .filter(|c| *c != id)
                .cloned()
                .collect(),
        }),
        None => Ok(()),
    }
}
