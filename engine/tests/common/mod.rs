//! Helpers shared by the property and fuzz tests.

/// Applies byte edits `(position, operation, byte)` to `base`: operation 0 replaces, 1
/// inserts, 2 deletes (positions wrap around the current length).
pub fn mutate_bytes(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(pos, op, byte) in edits {
        if b.is_empty() {
            b.push(byte);
            continue;
        }
        let i = pos % b.len();
        match op % 3 {
            0 => b[i] = byte,
            1 => b.insert(i, byte),
            _ => {
                b.remove(i);
            }
        }
    }
    b
}

/// [`mutate_bytes`] of a text, read back lossily as UTF-8.
pub fn mutate(base: &str, edits: &[(usize, u8, u8)]) -> String {
    String::from_utf8_lossy(&mutate_bytes(base.as_bytes(), edits)).into_owned()
}
