//! Count-set binding: how a `count` block's declared indices meet its live members by slot, which members
//! are surplus and which indices are created with which new slots.
//!
//! Binding is a pure function of the members' slots and address indices; it never reads a tag itself.

use std::collections::BTreeMap;

use super::Slot;

/// A live owned member of a `count` block, as binding sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountMember {
    /// The object's id.
    pub id: String,
    /// Its valid slot, if it carries one.
    pub slot: Option<Slot>,
    /// The index its address marker names.
    pub address_index: u64,
}

/// One declared index bound to a live member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundMember {
    /// The object's id.
    pub id: String,
    /// The slot it carries, or the slot a tags-only update gives it (an unslotted member).
    pub slot: Slot,
    /// The member carries no slot yet: the next apply writes `slot` with a tags-only update.
    pub needs_slot: bool,
    /// Its address marker names another index: the next apply repairs it with a tags-only update.
    pub stale_address: bool,
}

/// How a `count` block's declared indices meet its live members.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountBinding {
    /// The bound indices.
    pub bound: BTreeMap<u64, BoundMember>,
    /// The indices with no member: each is created with the slot given here.
    pub create: BTreeMap<u64, Slot>,
    /// The members beyond `count`, to destroy (ids, highest slots or indices first).
    pub surplus: Vec<String>,
}

/// Why a count set cannot be bound; nothing is planned for the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountSetError {
    /// Two members carry the same slot (`duplicate-slot`), naming their ids.
    DuplicateSlot {
        /// The slot.
        slot: Slot,
        /// The members carrying it, sorted.
        ids: Vec<String>,
    },
    /// Unslotted members carry the same address (`indistinguishable-instances`), naming their ids.
    Indistinguishable {
        /// The index their addresses name.
        index: u64,
        /// The members, sorted.
        ids: Vec<String>,
    },
    /// No slot is left to mint.
    SlotsExhausted,
}

/// A slot held for an index while no live object carries it: the index's old object was destroyed by
/// a replace (or its create was cut off) and its new object is not created yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldSlot {
    /// The index whose create intent holds the slot.
    pub index: u64,
    /// The slot.
    pub slot: Slot,
}

/// Binds a `count = count` block to its live members (markers.md, slots): slotted members in slot order
/// take indices 0, 1, ...; unslotted members then take the next free indices in address order. A wholly
/// unslotted set keeps its addresses and is given slot i = index i; in a mixed set the unslotted members
/// get new slots above the high-water mark. Surplus is the highest indices; a deficit mints slots above
/// the larger of every live slot and `recorded_high`.
pub fn bind_count_set(
    members: &[CountMember],
    count: u64,
    recorded_high: Option<Slot>,
) -> Result<CountBinding, CountSetError> {
    bind_count_set_holding(members, &[], count, recorded_high)
}

/// [`bind_count_set`], with the slots `held` for indices whose objects are gone: a held slot no live
/// member carries counts as live for the binding, so the index it falls to is created with it and no
/// higher member shifts down around the gap (in a wholly unslotted set, it is its own index's).
pub fn bind_count_set_holding(
    members: &[CountMember],
    held: &[HeldSlot],
    count: u64,
    recorded_high: Option<Slot>,
) -> Result<CountBinding, CountSetError> {
    let mut by_slot: BTreeMap<Slot, Vec<&CountMember>> = BTreeMap::new();
    let mut by_index: BTreeMap<u64, Vec<&CountMember>> = BTreeMap::new();
    for m in members {
        match m.slot {
            Some(s) => by_slot.entry(s).or_default().push(m),
            None => by_index.entry(m.address_index).or_default().push(m),
        }
    }
    distinct(&by_slot, &by_index)?;
    let wholly_unslotted = by_slot.is_empty();
    // The held slots no live member carries, each once.
    let mut holds: BTreeMap<Slot, u64> = BTreeMap::new();
    for h in held.iter().filter(|h| !by_slot.contains_key(&h.slot)) {
        holds.entry(h.slot).or_insert(h.index);
    }
    // Every member in binding order: slotted by slot, then unslotted by address index.
    let ordered: Vec<&CountMember> = by_slot
        .values()
        .flatten()
        .copied()
        .chain(by_index.values().flatten().copied())
        .collect();
    let mut binding = CountBinding::default();
    let mut high = by_slot
        .keys()
        .next_back()
        .copied()
        .max(holds.keys().next_back().copied())
        .max(recorded_high);
    if wholly_unslotted {
        // An unslotted set binds by address: index i keeps its member and gets slot i.
        for m in &ordered {
            if m.address_index < count {
                let slot = u32::try_from(m.address_index)
                    .map(Slot)
                    .map_err(|_| CountSetError::SlotsExhausted)?;
                binding.bound.insert(
                    m.address_index,
                    BoundMember {
                        id: m.id.clone(),
                        slot,
                        needs_slot: true,
                        stale_address: false,
                    },
                );
            }
        }
        let mut surplus: Vec<&&CountMember> = ordered
            .iter()
            .filter(|m| m.address_index >= count)
            .collect();
        surplus.sort_by_key(|m| std::cmp::Reverse(m.address_index));
        binding.surplus = surplus.into_iter().map(|m| m.id.clone()).collect();
        high = high.max(binding.bound.values().map(|b| b.slot).max());
        for (slot, index) in holds {
            if index < count && !binding.bound.contains_key(&index) {
                binding.create.entry(index).or_insert(slot);
            }
        }
    } else {
        // Slotted members (`Ok`) and held slots (`Err`) by slot, then the unslotted members.
        let mut entries: Vec<(Slot, Result<&CountMember, Slot>)> = by_slot
            .iter()
            .flat_map(|(s, ms)| ms.iter().map(|m| (*s, Ok(*m))))
            .chain(holds.keys().map(|s| (*s, Err(*s))))
            .collect();
        entries.sort_by_key(|(s, _)| *s);
        let entries: Vec<Result<&CountMember, Slot>> = entries
            .into_iter()
            .map(|(_, e)| e)
            .chain(by_index.values().flatten().map(|m| Ok(*m)))
            .collect();
        for (index, entry) in (0u64..).zip(entries.iter()) {
            if index >= count {
                break;
            }
            let m = match entry {
                Ok(m) => m,
                Err(held) => {
                    binding.create.insert(index, *held);
                    continue;
                }
            };
            let (slot, needs_slot) = match m.slot {
                Some(s) => (s, false),
                None => (mint(&mut high)?, true),
            };
            binding.bound.insert(
                index,
                BoundMember {
                    id: m.id.clone(),
                    slot,
                    needs_slot,
                    stale_address: m.address_index != index,
                },
            );
        }
        binding.surplus = entries
            .iter()
            .skip(usize::try_from(count).unwrap_or(usize::MAX))
            .rev()
            .filter_map(|e| e.ok().map(|m| m.id.clone()))
            .collect();
    }
    for index in 0..count {
        if !binding.bound.contains_key(&index) && !binding.create.contains_key(&index) {
            binding.create.insert(index, mint(&mut high)?);
        }
    }
    Ok(binding)
}

/// The next slot above `high`, which becomes the new `high`.
fn mint(high: &mut Option<Slot>) -> Result<Slot, CountSetError> {
    let s = match *high {
        None => Slot::FIRST,
        Some(h) => h.next().ok_or(CountSetError::SlotsExhausted)?,
    };
    *high = Some(s);
    Ok(s)
}

/// Refuses a set whose members cannot be told apart: two slotted members with one slot, two unslotted
/// ones with one address.
fn distinct(
    by_slot: &BTreeMap<Slot, Vec<&CountMember>>,
    by_index: &BTreeMap<u64, Vec<&CountMember>>,
) -> Result<(), CountSetError> {
    let ids = |ms: &[&CountMember]| {
        let mut ids: Vec<String> = ms.iter().map(|m| m.id.clone()).collect();
        ids.sort();
        ids
    };
    if let Some((slot, ms)) = by_slot.iter().find(|(_, ms)| ms.len() > 1) {
        return Err(CountSetError::DuplicateSlot {
            slot: *slot,
            ids: ids(ms),
        });
    }
    if let Some((index, ms)) = by_index.iter().find(|(_, ms)| ms.len() > 1) {
        return Err(CountSetError::Indistinguishable {
            index: *index,
            ids: ids(ms),
        });
    }
    Ok(())
}
