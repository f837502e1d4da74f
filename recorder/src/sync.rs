//! In-place updates that report change, so an unchanged frame structure costs a
//! comparison and never an allocation.

#[inline]
pub(crate) fn value<T: PartialEq>(slot: &mut T, value: T) -> bool {
    if *slot == value {
        false
    } else {
        *slot = value;
        true
    }
}

#[inline]
pub(crate) fn string(slot: &mut String, value: &str) -> bool {
    if slot == value {
        false
    } else {
        slot.clear();
        slot.push_str(value);
        true
    }
}

/// Makes `slot` equal to `source`, touching only the elements that differ.
pub(crate) fn vec_clone<T: Clone + PartialEq>(slot: &mut Vec<T>, source: &[T]) -> bool {
    if slot.as_slice() == source {
        return false;
    }
    slot.truncate(source.len());
    for (dst, src) in slot.iter_mut().zip(source) {
        if dst != src {
            dst.clone_from(src);
        }
    }
    let len = slot.len();
    slot.extend_from_slice(&source[len..]);
    true
}
